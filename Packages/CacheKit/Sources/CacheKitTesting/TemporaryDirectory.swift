import CacheKit
import Foundation

/// A fresh folder under the system's temporary directory, for stores that use real files in tests.
public struct TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("CacheKitTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Every regular file below the folder, recursively, once the deletions a clearing queued have run
    /// (a cleared store's files leave their paths at once and are deleted right after: `DiscardedFiles`).
    public func files() -> [URL] {
        DiscardedFiles.waitForDeletions()
        return filesNow()
    }

    /// Every regular file below the folder now, discarded files waiting for deletion included.
    public func filesNow() -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: url, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }

    /// Whether any file below the folder contains `bytes` (to prove data is gone from disk).
    public func anyFileContains(_ bytes: some StringProtocol) -> Bool {
        let needle = Data(bytes.utf8)
        return files().contains { file in
            (try? Data(contentsOf: file))?.range(of: needle) != nil
        }
    }

    /// Deletes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
