import Crypto
import Foundation

/// A secret key of this installation (32 random bytes in a 0600 file), for hashes that must not be
/// reversible by hashing guesses: identifiers in file names, varied request values kept beside a cached
/// response, redacted keys in exports. Without the key, `hash("u1")` cannot be computed, so a list of
/// likely user ids or e-mail addresses says nothing about a file or an export (security review, findings 5
/// and 12). The key stays with the folder it protects: a purge of that folder forgets both.
public final class InstallSecret: Sendable {
    private let key: Data
    private let directory: URL?

    /// The secret kept in `directory` (`.install-secret`), created on first use, and written again by
    /// ``fileNameHash(_:)`` when it finds it deleted (a folder emptied at logout keeps naming its next files
    /// the same way).
    /// When the file cannot be read or written, a key for this process alone is used: hashes then differ
    /// after a relaunch (a miss, never a leak). Of two secrets made at once for a folder that has none (two
    /// compositions over one folder, an app and its extension), the first to write its key wins and the other takes
    /// that key: both name a user's files alike.
    public init(directory: URL) {
        self.directory = directory
        if let stored = Self.stored(in: directory) {
            key = stored
            return
        }
        let made = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        let file = Self.file(in: directory)
        let created = (try? ProtectedFiles.createDirectory(directory)).flatMap { try? ProtectedFiles.createExclusively(made, at: file) }
        if created == false, let stored = Self.stored(in: directory) {
            key = stored
            return
        }
        key = made
        // A file that is there but holds no key (cut short by a full disk) is replaced.
        if created == false { store() }
    }

    /// The key in `directory`'s file, if it holds one.
    private static func stored(in directory: URL) -> Data? {
        guard let stored = try? Data(contentsOf: file(in: directory)), stored.count == 32 else { return nil }
        return stored
    }

    /// Whether `directory` holds a secret's file.
    public static func exists(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: file(in: directory).path)
    }

    /// Deletes the secret's file in `directory`, if any (the key of the hashes of what was just erased).
    public static func delete(in directory: URL) throws {
        let file = Self.file(in: directory)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }

    /// Writes the key to its file, durably (a file named by the key must never outlive it).
    private func store() {
        guard let directory, (try? ProtectedFiles.createDirectory(directory)) != nil else { return }
        try? ProtectedFiles.writeAtomically(key, to: Self.file(in: directory))
    }

    /// Whether the key is the one in its folder's file: what it names is found again after a relaunch.
    var isOnDisk: Bool {
        guard let directory else { return false }
        return (try? Data(contentsOf: Self.file(in: directory))) == key
    }

    /// The file's name in its folder.
    public static let fileName = ".install-secret"

    /// The secret's file in `directory`.
    private static func file(in directory: URL) -> URL { directory.appendingPathComponent(fileName, isDirectory: false) }

    /// A key for this process alone (tests, and folders that are never reopened).
    public init() {
        key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        directory = nil
    }

    /// HMAC-SHA256 of `text` under the secret, as 32 lowercase hex characters (128 bits).
    /// Pure computation, no file access: fit for a cache hit's path.
    public func hash(_ text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key)).prefix(16).map {
            String(format: "%02x", $0)
        }
        .joined()
    }

    /// ``hash(_:)`` for naming a file: the secret's own file is written again first if it was deleted, so
    /// the name can be found after a relaunch.
    public func fileNameHash(_ text: String) -> String {
        if let directory, !FileManager.default.fileExists(atPath: Self.file(in: directory).path) { store() }
        return hash(text)
    }
}
