import CacheKitTesting
import Foundation
import SessionKit
import Testing

/// The token file: owner-only, atomic, and a clear error for a damaged file.
@Suite(.timeLimit(.minutes(10))) struct FileTokenStoreTests {
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

    @Test func aFolderThatWasOpenToOthersIsNarrowedToTheOwner() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.url.appendingPathComponent("session")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let store = FileTokenStore(url: folder.appendingPathComponent("token.json"))
        try store.save(StoredToken(accessToken: "a", userId: "u1", expiresAt: nil))
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700, "the token's folder is \(mode.map { String($0, radix: 8) } ?? "?")")
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

/// What a process killed in the middle of a save leaves, and that the store removes it.
@Suite(.timeLimit(.minutes(10))) struct FileTokenStoreCrashTests {
    /// Set in the child process only: the token file it saves to, again and again.
    static let childVariable = "MIB_FILE_TOKEN_STORE_CRASH_CHILD"

    /// The temporary files beside the token file.
    static func strays(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".tmp") }
    }

    @Test func aStrayTemporaryFileIsRemovedByOpeningSavingAndDeleting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("token.json")
        // Exactly what a kill between the flush and the rename leaves: a temporary file with a token.
        let stray = directory.url.appendingPathComponent(".token.json.\(UUID().uuidString).tmp")
        let orphan = try JSONEncoder().encode(StoredToken(accessToken: "orphan", userId: "u1", expiresAt: nil))
        for remove in [
            { _ = FileTokenStore(url: url) }, { try FileTokenStore(url: url).delete() },
            { try FileTokenStore(url: url).save(StoredToken(accessToken: "new", userId: "u1", expiresAt: nil)) },
        ]
            as [() throws -> Void]
        {
            try orphan.write(to: stray)
            let store = FileTokenStore(url: url)
            try orphan.write(to: stray)  // written again after the store was opened
            try store.delete()
            #expect(Self.strays(in: directory.url).isEmpty, "delete() left a stray token file")
            try orphan.write(to: stray)
            try remove()
            #expect(Self.strays(in: directory.url).isEmpty, "a stray token file survived")
        }
        // Other files in the folder are left alone.
        let other = directory.url.appendingPathComponent("notes.tmp")
        try Data().write(to: other)
        try FileTokenStore(url: url).delete()
        #expect(FileManager.default.fileExists(atPath: other.path))
    }

    /// A child process (this test binary, filtered to ``childSaves()``) saves tokens in a loop and is
    /// killed with SIGKILL 20 times: at a random moment, or (every other trial) while a save is half done. Whatever the moment, the token file decodes
    /// (old or new, never half), and opening then deleting leaves no file that holds a token.
    @Test func aSaveKilledAtAnyMomentLeavesNothingAfterDelete() async throws {
        var killedWithAStray = 0
        for trials in 1...20 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let url = directory.url.appendingPathComponent("token.json")
            let child = try CrashChild.start(test: "childSaves", environment: [Self.childVariable: url.path])
            try await child.waitUntilStarted(signalledBy: url)
            // Every other trial kills the child while a save is half done (paused until its temporary file is there).
            if trials.isMultiple(of: 2) {
                _ = try await child.killWhenPaused { !Self.strays(in: directory.url).isEmpty }
            } else {
                try await child.kill(after: .milliseconds(Int.random(in: 0...30)))
            }
            if !Self.strays(in: directory.url).isEmpty { killedWithAStray += 1 }
            let store = FileTokenStore(url: url)
            #expect(Self.strays(in: directory.url).isEmpty, "opening the store left a stray token file")
            #expect(try store.load()?.userId == "u1", "the token file is whole")
            try store.delete()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        }
        // The stray-file cleanup was exercised, not only the quiet case.
        #expect(killedWithAStray > 0, "no kill landed inside a save")
    }

    /// Only in the child process: saves tokens until it is killed (at most 60 s or a million saves).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the crash test's child"))
    func childSaves() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let store = FileTokenStore(url: URL(fileURLWithPath: path))
        let deadline = Date().addingTimeInterval(60)
        for counter in 0..<1_000_000 where Date() < deadline {
            try store.save(StoredToken(accessToken: "token-\(counter)", userId: "u1", expiresAt: nil))
        }
    }
}
