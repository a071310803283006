import CacheKitTesting
import Foundation
import SessionKit
import Testing

/// The token file: owner-only, atomic, and a clear error for a damaged file.
@Suite struct FileTokenStoreTests {
    @Test func theFileIsOwnerOnlyAndSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("app/session/token.json")
        let store = FileTokenStore(url: url)
        #expect(try store.load() == nil)
        let token = StoredToken(accessToken: "secret-token", userId: "u1", expiresAt: Date(timeIntervalSince1970: 1_900_000_000))
        try store.save(token)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try FileTokenStore(url: url).load() == token)
        #expect(!"\(token)".contains("secret-token"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == ["token.json"], "no temporary file is left behind")
    }

    @Test func savingReplacesAndDeletingRemoves() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileTokenStore(url: directory.url.appendingPathComponent("token.json"))
        try store.save(StoredToken(accessToken: "a", userId: "u1", expiresAt: nil))
        try store.save(StoredToken(accessToken: "b", userId: "u2", expiresAt: nil))
        #expect(try store.load()?.userId == "u2")
        try store.delete()
        try store.delete()
        #expect(try store.load() == nil)
    }

    @Test func aTruncatedFileIsACorruptError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("token.json")
        let truncated = Data(#"{"accessToken":"abc","us"#.utf8)
        try truncated.write(to: url)
        #expect(throws: TokenStoreError.corrupt(reason: "the token file does not decode (\(truncated.count) bytes)")) {
            try FileTokenStore(url: url).load()
        }
    }
}
