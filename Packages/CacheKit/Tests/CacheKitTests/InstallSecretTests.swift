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
}
