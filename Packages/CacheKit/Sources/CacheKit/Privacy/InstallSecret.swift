import Crypto
import Foundation

/// A secret key of this installation (32 random bytes in a 0600 file), for hashes that must not be
/// reversible by hashing guesses: identifiers in file names, varied request values kept beside a cached
/// response, redacted keys in exports. Without the key, `hash("u1")` cannot be computed, so a list of
/// likely user ids or e-mail addresses says nothing about a file or an export (security review, findings 5
/// and 12). The key stays with the folder it protects: a purge of that folder forgets both.
public final class InstallSecret: Sendable {
    /// The key: the folder's file's, taken again whenever a name is made (``fileNameHash(_:)``).
    private let current: Locked<Data>
    private let directory: URL?

    /// The secret kept in `directory` (`.install-secret`), created on first use, and written again by
    /// ``fileNameHash(_:)`` when it finds it deleted (a folder emptied at logout keeps naming its next files
    /// the same way).
    /// When the file cannot be read or written, a key for this process alone is used: hashes then differ
    /// after a relaunch (a miss, never a leak). Every secret of one folder names files with the key its file holds:
    /// the file is only ever created exclusively, so of two secrets made at once for a folder that has none (two
    /// compositions over one folder, an app and its extension) the first to write its key wins and the other takes
    /// that key, and a secret whose folder's file holds another key since takes it at its next name.
    public init(directory: URL) {
        self.directory = directory
        current = Locked(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        followFile(in: directory)
    }

    /// Takes the key `directory`'s file holds; when there is none, writes this secret's, exclusively (of two secrets
    /// writing at once, the first wins and the other takes its key).
    private func followFile(in directory: URL) {
        if let stored = Self.stored(in: directory) {
            current.withLock { $0 = stored }
        } else if Self.create(current.withLock { $0 }, in: directory) == false {
            adoptOrRepair(directory)
        }
    }

    /// Whether `directory` holds a secret's file.
    public static func exists(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: file(in: directory).path)
    }

    /// Deletes the secret's file in `directory`, if any (the key of the hashes of what was just erased), and what a
    /// write of it killed half way left.
    public static func delete(in directory: URL) throws {
        let file = Self.file(in: directory)
        ProtectedFiles.removeTemporaryFiles(of: file)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }

    /// The key in `directory`'s file, if it holds one.
    static func stored(in directory: URL) -> Data? {
        guard let stored = try? Data(contentsOf: file(in: directory)), stored.count == 32 else { return nil }
        return stored
    }

    /// Creates `directory`'s file with `key` unless it exists: `true` when created, `false` when it existed, `nil`
    /// when it could not be written.
    private static func create(_ key: Data, in directory: URL) -> Bool? {
        guard (try? ProtectedFiles.createDirectory(directory)) != nil else { return nil }
        return try? ProtectedFiles.createExclusively(key, at: file(in: directory))
    }

    /// The folder's file exists: its key is taken. A file that holds no key (cut short by a full disk: not 32 bytes)
    /// is replaced with this secret's; one that could not be read now is left as it is (this process's key is then a
    /// miss, never the loss of every name the file's key made).
    private func adoptOrRepair(_ directory: URL) {
        if let stored = Self.stored(in: directory) {
            current.withLock { $0 = stored }
            return
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: Self.file(in: directory).path))?[.size] as? Int
        guard let size, size != 32 else { return }
        try? ProtectedFiles.writeAtomically(current.withLock { $0 }, to: Self.file(in: directory))
    }

    /// Whether the key is the one in its folder's file: what it names is found again after a relaunch.
    var isOnDisk: Bool {
        guard let directory else { return false }
        return Self.stored(in: directory) == current.withLock { $0 }
    }

    /// The file's name in its folder.
    public static let fileName = ".install-secret"

    /// The secret's file in `directory`.
    private static func file(in directory: URL) -> URL { directory.appendingPathComponent(fileName, isDirectory: false) }

    /// A key for this process alone (tests, and folders that are never reopened).
    public init() {
        current = Locked(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        directory = nil
    }

    /// HMAC-SHA256 of `text` under the secret, as 32 lowercase hex characters (128 bits).
    /// Pure computation, no file access: fit for a cache hit's path.
    public func hash(_ text: String) -> String {
        Self.hash(text, key: current.withLock { $0 })
    }

    /// ``hash(_:)`` under `key`.
    static func hash(_ text: String, key: Data) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key)).prefix(16).map {
            String(format: "%02x", $0)
        }
        .joined()
    }

    /// ``hash(_:)`` for naming a file, under the key the folder's file holds: the file is written again first if
    /// it was deleted (exclusively: another secret of the folder may be writing its own), and a key another secret
    /// wrote there since is taken, so the name can be found after a relaunch and by every secret of the folder.
    public func fileNameHash(_ text: String) -> String {
        if let directory { followFile(in: directory) }
        return hash(text)
    }
}
