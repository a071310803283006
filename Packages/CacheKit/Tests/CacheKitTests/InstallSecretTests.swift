import CacheKitTesting
import Foundation
import Testing

@testable import CacheKit

/// The installation's secret names every user's files: two secrets of one folder must hash alike, or a file one
/// names is never found (never erased) by the other.
@Suite(.timeLimit(.minutes(5))) struct InstallSecretTests {
    /// Two compositions over one new folder (an app and its extension, a composition built again) make its secret at
    /// once: the first key written is everyone's.
    @Test func secretsMadeAtOnceForANewFolderAreOne() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for round in 0..<20 {
            let directory = folder.url.appendingPathComponent("round-\(round)", isDirectory: true)
            let hashes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<6 { group.addTask { InstallSecret(directory: directory).hash("u1") } }
                return await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(hashes == [InstallSecret(directory: directory).hash("u1")], "round \(round): \(hashes.count) keys")
        }
    }

    /// A secret's file cut short (a full disk) holds no key: it is replaced, so the next secret hashes alike.
    @Test func aFileThatHoldsNoKeyIsReplaced() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Data("short".utf8).write(to: folder.url.appendingPathComponent(InstallSecret.fileName))
        let secret = InstallSecret(directory: folder.url)
        #expect(secret.isOnDisk)
        #expect(InstallSecret(directory: folder.url).hash("u1") == secret.hash("u1"))
    }

    /// A secret whose folder's key was deleted (a logout emptied the folder) and written again by another secret of the
    /// folder names files with that key from its next name on, as a relaunch would.
    @Test func aKeyAnotherSecretWroteSinceIsTakenAtTheNextName() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let first = InstallSecret(directory: folder.url)
        try InstallSecret.delete(in: folder.url)
        let second = InstallSecret(directory: folder.url)
        #expect(first.fileNameHash("u1") == second.fileNameHash("u1"))
        #expect(InstallSecret(directory: folder.url).hash("u1") == first.hash("u1"))
        // Deleted again, the first writes its key back, exclusively, and the second takes it.
        try InstallSecret.delete(in: folder.url)
        #expect(first.fileNameHash("u2") == second.fileNameHash("u2"))
    }

    /// What a write killed half way left beside a file goes with it: the key's, a user's file's.
    @Test func aDeletionTakesWhatAKilledWriteLeft() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let secret = InstallSecret(directory: folder.url)
        let user = folder.url.appendingPathComponent(secret.fileNameHash("u1") + ".json")
        try Data("{}".utf8).write(to: user)
        for left in [InstallSecret.fileName, user.lastPathComponent] {
            try Data("half".utf8).write(to: folder.url.appendingPathComponent(left + ".\(UUID().uuidString).tmp"))
        }
        try secret.eraseUserFile("u1", suffix: ".json", in: folder.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
