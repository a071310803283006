import Foundation
import GRDB

/// How a cache store opens its SQLite file: one connection, a write-ahead log with `synchronous=NORMAL` (or `FULL`), and
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
    ///
    /// Another connection may be opening the same new file at once (a composition built again while the last one
    /// lives, another process over the same folder): what that causes (a lock SQLite does not wait for, a migration
    /// the other has just committed) is tried again, within one busy timeout; any other failure is thrown at once.
    /// - Parameters:
    ///   - url: the file; its folder must exist.
    ///   - label: the connection's name in GRDB's diagnostics (`CacheKit.DiskStore`).
    ///   - migrator: the file's migrations, in order.
    ///   - synchronous: when a commit reaches the disk.
    /// - Throws: GRDB's error when the file cannot be opened, is not a database, or a migration fails.
    public static func open(
        _ url: URL, label: String, migrator: DatabaseMigrator, synchronous: Synchronous = .normal
    ) throws -> DatabaseQueue {
        try besideAnotherOpening {
            let connection = try openOnce(url, label: label, synchronous: synchronous)
            do {
                let stamp = stamp(of: migrator)
                if try connection.inDatabase({ try Int.fetchOne($0, sql: "PRAGMA user_version") }) != stamp {
                    try migrator.migrate(connection)
                    // Only a shortcut for the next open: a file that cannot take it (a full disk, a lock held) still
                    // opens.
                    try? connection.inDatabase { try $0.execute(sql: "PRAGMA user_version = \(stamp)") }
                }
                return connection
            } catch {
                try? connection.close()
                throw error
            }
        }
    }

    /// The most times ``besideAnotherOpening(_:)`` tries an opening.
    static let openingAttempts = 8

    /// How long ``besideAnotherOpening(_:)`` goes on trying: one busy timeout, so a lock another process holds costs
    /// what it cost before, not that once per attempt.
    static let openingPatience = Duration.seconds(5)

    /// Runs `opening` again, after a moment, when it fails because another connection is opening the same file: up to
    /// ``openingAttempts`` times, within ``openingPatience``.
    ///
    /// Another connection may be opening the same new file at once: a composition built again while the last one
    /// lives, or another process over the same folder. SQLite does not wait for the lock a new file's switch to the
    /// write-ahead log takes, and GRDB's migrator reads which migrations are applied before it takes the write lock
    /// for each, so of two at once, one can run a migration the other has just committed ("table already exists").
    /// The one that failed opens again: the log is on, what the other committed reads as applied, and a file the
    /// other finished reads as stamped. Any other error (not a database, a migration's own error) is thrown at once,
    /// so a damaged file is discarded as quickly as before.
    static func besideAnotherOpening<T>(_ opening: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + openingPatience
        var attempt = 1
        while true {
            do {
                return try opening()
            } catch let error as DatabaseError where isRace(error) && attempt < openingAttempts && ContinuousClock.now < deadline {
                usleep(useconds_t(2_000 * attempt))
                attempt += 1
            }
        }
    }

    /// Whether `error` is what an opening meets beside another opening of the same file: a lock not waited for, or a
    /// migration the other has just committed.
    static func isRace(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: true
        case .SQLITE_ERROR: error.message?.contains("already exists") == true
        default: false
        }
    }

    /// Opens (or creates) the database at `url`.
    /// - Parameters:
    ///   - url: the file; its folder must exist.
    ///   - label: the connection's name in GRDB's diagnostics (`CacheKit.DiskStore`).
    ///   - synchronous: when a commit reaches the disk.
    /// - Throws: GRDB's error when the file cannot be opened or is not a database.
    public static func open(_ url: URL, label: String, synchronous: Synchronous = .normal) throws -> DatabaseQueue {
        try besideAnotherOpening { try openOnce(url, label: label, synchronous: synchronous) }
    }

    /// When a commit reaches the disk (SQLite's `synchronous` in WAL mode).
    public enum Synchronous: String, Sendable {
        /// A commit is in the log when it returns; a killed process loses nothing, a power cut may lose the last
        /// commits. What a cache, which the server can fill again, needs.
        case normal = "NORMAL"
        /// A commit is synced to the disk before it returns; a power cut loses nothing committed. What a record of
        /// the user's own work (a queued change) needs.
        case full = "FULL"
    }

    /// Opens (or creates) the database at `url` with a cache store's settings, once.
    private static func openOnce(_ url: URL, label: String, synchronous: Synchronous) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = label
        // Another process on the file (a crash trial's child, a tool) waits for its lock instead of failing.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        let connection = try DatabaseQueue(path: url.path, configuration: configuration)
        do {
            try connection.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
                // The log is part of the cache's size on disk: checkpointed every 256 pages (1 MiB at 4 KiB) and cut
                // back to at most that after each checkpoint, where SQLite would let it grow to 4 MiB and keep it.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(logPages)")
                try db.execute(sql: "PRAGMA journal_size_limit = \(logBytes)")
            }
            return connection
        } catch {
            try? connection.close()
            throw error
        }
    }
}
