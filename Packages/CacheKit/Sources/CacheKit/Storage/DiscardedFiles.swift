import Foundation

/// How a store clears its files at logout: out of reach at once, deleted right after.
///
/// Clearing must make a user's data unreachable before the next screen, but unlinking a large file
/// makes the kernel drop its pages, which takes tens of milliseconds for 50 MB. So a store renames its
/// files into a hidden `.discarded` folder beside them (one atomic rename each; no store ever opens
/// anything there) and deletes that folder on a background queue. If the process dies in between, the
/// files are still out of every store's path, and the next store created over that folder deletes them
/// before it opens anything (``sweep(_:)``). The rule is REQ ARC-9.
public enum DiscardedFiles {
    /// The hidden folder, inside a store's folder, that holds files waiting to be deleted.
    public static let folderName = ".discarded"

    private static let deleter = DispatchQueue(label: "CacheKit.DiscardedFiles", qos: .utility)

    /// Moves every file of `paths` that exists into `directory/.discarded/<unique>/`, then deletes that
    /// folder in the background. Returns once the files are gone from their paths.
    /// - Throws: the file system's error when a file cannot be moved; files already moved stay discarded.
    public static func discard(_ paths: [String], in directory: URL) throws {
        let present = paths.filter { FileManager.default.fileExists(atPath: $0) }
        guard !present.isEmpty else { return }
        let bin = directory.appendingPathComponent(folderName, isDirectory: true).appendingPathComponent(
            UUID().uuidString, isDirectory: true)
        try ProtectedFiles.createDirectory(bin)
        for (index, path) in present.enumerated() {
            let name = "\(index)-" + URL(fileURLWithPath: path).lastPathComponent
            try FileManager.default.moveItem(atPath: path, toPath: bin.appendingPathComponent(name, isDirectory: false).path)
        }
        deleter.async { try? FileManager.default.removeItem(at: bin) }
    }

    /// Deletes what an earlier ``discard(_:in:)`` left in `directory` (the process died before the
    /// background deletion ran), in the background.
    public static func sweep(_ directory: URL) {
        let bin = directory.appendingPathComponent(folderName, isDirectory: true)
        // Listing a folder that is not there throws, which costs more than asking first.
        guard FileManager.default.fileExists(atPath: bin.path),
            let leftovers = try? FileManager.default.contentsOfDirectory(atPath: bin.path), !leftovers.isEmpty
        else { return }
        // Only the folders there now: a discard that starts meanwhile deletes its own.
        deleter.async {
            for name in leftovers { try? FileManager.default.removeItem(at: bin.appendingPathComponent(name, isDirectory: false)) }
        }
    }

    /// Waits until every deletion queued so far has run (for tests and benchmarks).
    public static func waitForDeletions() {
        deleter.sync {}
    }
}
