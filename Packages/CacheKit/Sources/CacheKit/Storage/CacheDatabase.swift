import Foundation
import GRDB

/// How a cache store opens its SQLite file: one connection, a write-ahead log with `synchronous=NORMAL`, and
/// `secure_delete` on. A commit appends to the log, so a process killed mid-write leaves the file at its last
/// commit; deleted rows (a logout) are overwritten on disk, not just unlinked. One connection, not a pool: a
/// cache's reads are point reads that never wait long on a write, and a relaunch opens one connection instead
/// of a pool's writer and then its first reader.
public enum CacheDatabase {
    /// The pages the write-ahead log collects before it is copied into the database.
    static let logPages = 256
    /// The most bytes the write-ahead log keeps on disk after a checkpoint.
    public static let logBytes = 1_048_576

    /// What a file's `user_version` holds once every migration of `migrator` has run: a hash of their identifiers
    /// in order (1 to 2³⁰), so two different lists of migrations, even of one length (a migration replaced,
    /// another branch's), share a stamp only by a one-in-a-billion chance; 0, SQLite's default, is no stamp.
    static func stamp(of migrator: DatabaseMigrator) -> Int {
        Int(truncatingIfNeeded: StableHash.value(migrator.migrations.joined(separator: "\u{1F}")) & 0x3FFF_FFFF) + 1
    }

    /// Opens (or creates) the database at `url` and brings its schema up to `migrator`'s last migration;
    /// closes it again if that fails.
    ///
    /// A file already migrated by the same migrations is recognised by one pragma, its stamp in `user_version`,
    /// instead of the migrator's reads of its table of applied migrations: at every relaunch, each store's
    /// first use pays one statement for its schema instead of three. A file with another stamp (none yet, an older
    /// schema, a newer app's, another list of migrations) goes through the migrator, then is stamped.
    /// - Throws: GRDB's error when the file cannot be opened, is not a database, or a migration fails.
    public static func open(_ url: URL, label: String, migrator: DatabaseMigrator) throws -> DatabaseQueue {
        let connection = try open(url, label: label)
        do {
            let stamp = stamp(of: migrator)
            if try connection.inDatabase({ try Int.fetchOne($0, sql: "PRAGMA user_version") }) != stamp {
                try migrator.migrate(connection)
                // Only a shortcut for the next open: a file that cannot take it (a full disk, a lock held) still opens.
                try? connection.inDatabase { try $0.execute(sql: "PRAGMA user_version = \(stamp)") }
            }
            return connection
        } catch {
            try? connection.close()
            throw error
        }
    }

    /// Opens (or creates) the database at `url`.
    /// - Parameters:
    ///   - url: the file; its folder must exist.
    ///   - label: the connection's name in GRDB's diagnostics (`CacheKit.DiskStore`).
    /// - Throws: GRDB's error when the file cannot be opened or is not a database.
    public static func open(_ url: URL, label: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = label
        // Another process on the file (a crash trial's child, a tool) waits for its lock instead of failing.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        let connection = try DatabaseQueue(path: url.path, configuration: configuration)
        try connection.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The log is part of the cache's size on disk: checkpointed every 256 pages (1 MiB at 4 KiB) and cut
            // back to at most that after each checkpoint, where SQLite would let it grow to 4 MiB and keep it.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(logPages)")
            try db.execute(sql: "PRAGMA journal_size_limit = \(logBytes)")
        }
        return connection
    }
}
