import Foundation
import GRDB

/// One SQLite file per user in a folder, for a kit that keeps records of its own (a chat history, an
/// address book): each file named by a keyed hash of the user id (this installation's key, kept in the
/// folder, so a list of likely user ids says nothing of whose file is whose), protected, migrated when
/// opened, and deleted whole.
///
/// ```swift
/// let files = UserDatabases(directory: caches.appendingPathComponent("notes"), prefix: "notes", migrator: NotesStore.migrator)
/// let database = try files.database(for: userId)      // opened and migrated on first use
/// try files.erase(userId: userId)                     // account deletion
/// try files.removeAll()                               // logout
/// ```
public final class UserDatabases: Sendable {
    /// The folder of the files.
    public let directory: URL
    private let prefix: String
    private let migrator: DatabaseMigrator
    private let open = Locked<[String: DatabaseQueue]>([:])
    private let secret = Locked<InstallSecret?>(nil)

    /// Files in `directory` (created on first use).
    ///
    /// - Parameters:
    ///   - directory: the folder, the kit's own under the caches directory.
    ///   - prefix: the start of every file name (`history`, `contacts`).
    ///   - migrator: every schema version, applied when a file opens.
    public init(directory: URL, prefix: String, migrator: DatabaseMigrator) {
        self.directory = directory
        self.prefix = prefix
        self.migrator = migrator
    }

    /// The user's file (`<prefix>-<keyed hash>.sqlite`).
    public func fileURL(for userId: String) -> URL {
        let directory = self.directory
        let key = secret.withLock { secret in
            if let secret { return secret }
            let loaded = InstallSecret(directory: directory)
            secret = loaded
            return loaded
        }
        return directory.appendingPathComponent("\(prefix)-\(key.fileNameHash(userId)).sqlite")
    }

    /// The user's database, created, protected and migrated on first use.
    /// - Throws: when the file cannot be created, opened or migrated.
    public func database(for userId: String) throws -> DatabaseQueue {
        if let database = open.withLock({ $0[userId] }) { return database }
        try ProtectedFiles.createDirectory(directory)
        let url = fileURL(for: userId)
        let database = try DatabaseQueue(path: url.path)
        try ProtectedFiles.protectFile(url)
        try migrator.migrate(database)
        return open.withLock { open in
            if let existing = open[userId] { return existing }
            open[userId] = database
            return database
        }
    }

    /// The databases open now, for statistics.
    public var openDatabases: [DatabaseQueue] {
        open.withLock { Array($0.values) }
    }

    /// Closes and deletes the user's file (account deletion), and the key naming the files once no file
    /// of any user is left.
    public func erase(userId: String) throws {
        try open.withLock { $0.removeValue(forKey: userId) }?.close()
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        let url = fileURL(for: userId)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
        let others = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("\(prefix)-") }
        if others.isEmpty {
            secret.withLock { $0 = nil }
            try InstallSecret.delete(in: directory)
        }
    }

    /// Closes every file and deletes the folder (logout).
    public func removeAll() throws {
        let databases = open.withLock { open in
            defer { open = [:] }
            return Array(open.values)
        }
        for database in databases { try database.close() }
        secret.withLock { $0 = nil }
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        try FileManager.default.removeItem(at: directory)
    }
}
