import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore
@testable import APICoreOffline

/// A user's files are named by a keyed hash (security review, finding 12): hashing a list of likely user
/// ids, as a thief of the folder would, finds no file; and a file named the old way is still found.
@Suite(.timeLimit(.minutes(3))) struct FileNameHashTests {
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

    @Test func aQueueFileNamedTheOldWayIsRenamedAndKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = queue(in: directory.url)
        let legacy = queue.legacyFileURL(for: "u1")
        try ProtectedFiles.createDirectory(directory.url)
        _ = try MutationQueueStore(url: legacy)
        #expect(FileManager.default.fileExists(atPath: legacy.path))
        _ = try await queue.store(for: "u1")
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(FileManager.default.fileExists(atPath: queue.fileURL(for: "u1").path))
    }
}
