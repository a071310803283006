import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreOffline

/// A user's files are named by a keyed hash (security review, finding 12): hashing a list of likely user
/// ids, as a thief of the folder would, finds no file; and a file named the old way is still found.
@Suite(.timeLimit(.minutes(10))) struct FileNameHashTests {
    func queue(in directory: URL) -> MutationQueue {
        MutationQueue(configuration: .init(directory: directory, tokenProvider: StaticTokenProvider(nil)))
    }

    @Test func aGuessedUserIdNamesNoFileAndTwoInstallsNameTheSameUserDifferently() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        defer {
            first.remove()
            second.remove()
        }
        let name = queue(in: first.url).fileURL(for: "u1").lastPathComponent
        // What an attacker computes from a guess: the unkeyed hash the files were named by before.
        #expect(name != "queue-\(StableHash.hex("u1")).sqlite")
        #expect(!name.contains("u1"))
        #expect(queue(in: second.url).fileURL(for: "u1").lastPathComponent != name)
        // The same install names it the same way after a relaunch (the key is kept, 0600, in the folder).
        #expect(queue(in: first.url).fileURL(for: "u1").lastPathComponent == name)
        #expect(ProtectedFiles.permissions(of: first.url.appendingPathComponent(InstallSecret.fileName)) == 0o600)
    }

    /// An upgrade keeps the user's queued changes: a queue file named the old way, its last change still in
    /// the write-ahead log (the app was killed before a checkpoint), is renamed with its log, and the change
    /// is pending under the new name.
    @Test func aQueueFileNamedTheOldWayIsRenamedAndKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = MutationQueue(
            configuration: .init(
                directory: directory.url, tokenProvider: StaticTokenProvider(Credentials(accessToken: "t", userId: "u1"))))
        let legacy = queue.legacyFileURL(for: "u1")
        try ProtectedFiles.createDirectory(directory.url)
        // Written through a store at another path and copied while it is open: the change lives in its WAL.
        let writing = directory.url.appendingPathComponent("writing.sqlite")
        var store: MutationQueueStore? = try MutationQueueStore(url: writing)
        _ = try store?.append(
            name: "RenameContact", key: "k-1",
            request: .rest(method: .patch, path: "/contacts/c1", headerFields: [:], body: Data(#"{"displayName":"Ada"}"#.utf8)),
            at: Date(), optimistic: nil, creates: nil)
        let wal = (try? FileManager.default.attributesOfItem(atPath: writing.path + "-wal")[.size] as? Int) ?? 0
        #expect(wal > 0, "the change is in the write-ahead log")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: writing.path + suffix) {
            try FileManager.default.copyItem(atPath: writing.path + suffix, toPath: legacy.path + suffix)
        }
        store = nil
        let pending = await queue.pending()
        #expect(pending.map(\.name) == ["RenameContact"], "the queued change survived the upgrade")
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(!FileManager.default.fileExists(atPath: legacy.path + "-wal"))
        #expect(FileManager.default.fileExists(atPath: queue.fileURL(for: "u1").path))
    }

    /// The payment and purchase keys of a user are in a file named the same way; one named the old way keeps its
    /// keys (an unknown outcome survives the upgrade) under the new name.
    @Test func intentKeysAreNamedByAKeyedHashAndAnOldFileIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ProtectedFiles.createDirectory(directory.url)
        let old = InstallSecret.legacyUserFile("u1", suffix: ".json", in: directory.url)
        try JSONEncoder().encode([StableHash.sha256("payment|100"): "k-unknown"]).write(to: old)
        let keys = IntentKeys(directory: directory.url)
        #expect(keys.isUnresolved("payment|100", user: "u1"), "the old file's key was lost")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!names.contains(old.lastPathComponent) && names.filter { $0.hasSuffix(".json") }.count == 1, "\(names)")
        try keys.erase(userId: "u1")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".json") }.isEmpty)
    }
}
