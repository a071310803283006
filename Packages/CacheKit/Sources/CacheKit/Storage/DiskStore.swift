import Foundation
import GRDB
import Logging

/// A persistent cache store: one SQLite file (through GRDB, WAL mode) in a caches directory.
///
/// - Survives restarts: a new store on the same directory sees the entries.
/// - Expiry per entry; LRU eviction keeps the total size under ``Configuration/byteLimit`` (50 MB by
///   default). An entry's size is counted exactly as the UTF-8 bytes of its key plus the bytes of its value.
/// - Writes are SQLite transactions, so a crash mid-write never leaves a half entry that a read returns.
/// - A corrupt entry (its CRC-32 does not match) is dropped, logged and reported as a miss; a damaged
///   or foreign database file is discarded and started afresh, never a crash.
/// - Removed data is gone from disk: `secure_delete` zeroes freed content, the WAL is truncated after
///   removals, and ``removeAll()`` deletes the database files themselves. The file is created again
///   on the next write.
///
/// Why SQLite rather than one file per entry: see `BENCHMARKS.md` ("DiskStore: storage choice").
/// Recency is kept in memory on reads and written with the next write, so a read costs one SQLite
/// point read; after a crash, reads since the last write are forgotten by the LRU order only.
public final class DiskStore: CacheStore {
    /// Where and how much a disk store keeps.
    public struct Configuration: Sendable {
        /// The directory that holds the database file; created on first write.
        public var directory: URL
        /// The most total bytes kept (keys plus values). 50 MB by default.
        public var byteLimit: Int
        /// The database file's name inside ``directory``.
        public var fileName: String

        /// Creates a configuration.
        public init(directory: URL, byteLimit: Int = 50 * 1024 * 1024, fileName: String = "cache.sqlite") {
            self.directory = directory
            self.byteLimit = byteLimit
            self.fileName = fileName
        }

        /// The database file.
        public var databaseURL: URL { directory.appendingPathComponent(fileName, isDirectory: false) }
    }

    struct State {
        var connection: DatabaseQueue?
        var totalBytes = 0
        var nextAccess: Int64 = 0
        var pendingAccess: [String: Int64] = [:]
    }

    /// The stored values are bytes.
    public typealias Value = Data

    /// The store's name, the `store` dimension of its metrics.
    public let name: String
    /// Where and how much it keeps.
    public let configuration: Configuration
    private let clock: any CacheClock
    let metrics: CacheMetrics
    let logger: Logger
    /// Told before and after each change to what the store holds.
    let changes: (any StoreChangeObserver)?
    let state = Locked(State())
    /// Held while the file is opened and while a clearing closes and moves it away; never inside a database closure.
    let fileLock = Locked(())

    /// Creates a store over `configuration.directory`. Nothing is opened or created until first use.
    ///
    /// - Parameters:
    ///   - name: the `store` dimension of its metrics.
    ///   - configuration: the directory and byte limit.
    ///   - clock: the source of "now" for expiry.
    ///   - metrics: where hits, misses, expirations and evictions are counted.
    ///   - logger: where dropped corrupt entries and storage failures are reported (keys redacted).
    ///   - changes: told before and after each write, removal, eviction, clearing and new expiry.
    public init(
        name: String = "disk",
        configuration: Configuration,
        clock: any CacheClock = SystemClock(),
        metrics: CacheMetrics? = nil,
        logger: Logger = Logger(label: "CacheKit.DiskStore"),
        changes: (any StoreChangeObserver)? = nil
    ) {
        self.name = name
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics ?? CacheMetrics(store: name, feature: "-")
        self.logger = logger
        self.changes = changes
        // Files a clearing moved aside before the process died are deleted before anything is opened.
        DiscardedFiles.sweep(configuration.directory)
    }

    // MARK: Reading

    /// The fresh entry for `key` if `requester` may see it. Corruption and storage failures are logged
    /// and reported as misses.
    public func get(_ key: String, requester: String? = nil) -> CacheEntry<Data>? {
        let now = clock.now()
        var outcome = LookupStatus.miss
        var found: CacheEntry<Data>?
        do {
            switch try read(key) {
            case nil:
                break
            case let entry? where !entry.metadata.scope.isVisible(to: requester):
                break
            case let entry? where !entry.metadata.isFresh(at: now):
                // Kept, readable as stale through `peek`, until evicted or cleared.
                outcome = .expired
            case let entry?:
                markUsed(key)
                outcome = .hit
                found = entry
            }
        } catch {
            handleReadFailure(error, key: key)
        }
        metrics.record(outcome)
        return found
    }

    /// The entry for `key`, fresh or stale, without touching recency or metrics.
    public func peek(_ key: String, requester: String? = nil) -> CacheEntry<Data>? {
        do {
            guard let entry = try read(key), entry.metadata.scope.isVisible(to: requester) else { return nil }
            return entry
        } catch {
            handleReadFailure(error, key: key)
            return nil
        }
    }

    private func read(_ key: String) throws -> CacheEntry<Data>? {
        guard let connection = try database(creating: false) else { return nil }
        // A cursor's row reads the statement's columns in place, with no copy of the whole row.
        return try connection.inDatabase { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.selectEntrySQL), arguments: [key])
            guard let row = try rows.next() else { return nil }
            let value = try row.decode(Data.self, atIndex: 0)
            let checksum = try row.decode(Int64.self, atIndex: 1)
            guard UInt32(truncatingIfNeeded: checksum) == CRC32.checksum(value) else {
                throw DiskStoreCorruption.checksumMismatch
            }
            return CacheEntry(value: value, metadata: try Self.metadata(from: row, startingAt: 2))
        }
    }

    // MARK: Writing

    /// Stores `value` under `key`, then evicts least recently used entries until the total is within
    /// the byte limit. A value larger than the limit on its own is not stored.
    ///
    /// - Throws: the storage error when the write fails (disk full, permissions); nothing is half-written.
    public func set(_ value: Data, forKey key: String, metadata: CacheEntryMetadata) throws {
        changes?.storeWillChange()
        defer { changes?.storeDidChange() }
        let size = key.utf8.count + value.count
        guard size <= configuration.byteLimit else {
            logger.notice(
                "Value larger than the disk cache's limit; not stored",
                metadata: ["key": "\(key.redacted)", "bytes": "\(size)"])
            try remove(key)
            metrics.recordEvictions(1)
            return
        }
        guard let connection = try database(creating: true) else { return }
        let evicted = try connection.write { db in
            try flushPendingAccess(db)
            let access = state.withLock { state in
                state.nextAccess += 1
                return state.nextAccess
            }
            let previous = try Int.fetchOne(db, sql: "SELECT size FROM entry WHERE key = ?", arguments: [key]) ?? 0
            try db.execute(sql: "DELETE FROM entry_tag WHERE key = ?", arguments: [key])
            try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: [
                key, value, Int64(CRC32.checksum(value)), size,
                metadata.storedAt.timeIntervalSince1970, metadata.expiresAt?.timeIntervalSince1970,
                metadata.timeout.storageForm, metadata.scope.userId, metadata.scope.accountId,
                Self.encodeTags(metadata.scope.tags), access,
            ])
            for tag in metadata.scope.tags {
                try db.execute(sql: "INSERT INTO entry_tag (key, tag) VALUES (?, ?)", arguments: [key, tag])
            }
            let total = state.withLock { state in
                state.totalBytes += size - previous
                return state.totalBytes
            }
            return try evict(db, keeping: key, total: total, limit: configuration.byteLimit)
        }
        metrics.recordWrite()
        metrics.recordEvictions(evicted)
    }

    /// Evicts least recently used entries until the total size is at most `bytes` (the app-wide
    /// budget); returns how many were evicted.
    /// - Throws: the storage error when the deletion fails.
    @discardableResult
    public func trim(toBytes bytes: Int) throws -> Int {
        changes?.storeWillChange()
        defer { changes?.storeDidChange() }
        guard let connection = try database(creating: false) else { return 0 }
        let evicted = try connection.write { db in
            try flushPendingAccess(db)
            return try evict(db, keeping: "", total: state.withLock { $0.totalBytes }, limit: max(0, bytes))
        }
        metrics.recordEvictions(evicted)
        return evicted
    }

    /// Deletes least recently used entries (other than `key`) until the total fits `limit`.
    private func evict(_ db: Database, keeping key: String, total: Int, limit: Int) throws -> Int {
        guard total > limit else { return 0 }
        var excess = total - limit
        var victims: [String] = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT key, size FROM entry WHERE key != ? ORDER BY access_seq",
            arguments: [key])
        while excess > 0, let row = try rows.next() {
            victims.append(try row.decode(String.self, atIndex: 0))
            excess -= try row.decode(Int.self, atIndex: 1)
        }
        let (_, freed) = try deleteEntries(db, where: "key = ?", values: victims)
        state.withLock { $0.totalBytes -= freed }
        return victims.count
    }

    private func flushPendingAccess(_ db: Database) throws {
        let pending = state.withLock { state in
            defer { state.pendingAccess.removeAll(keepingCapacity: true) }
            return state.pendingAccess
        }
        guard !pending.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "UPDATE entry SET access_seq = ? WHERE key = ?")
        for (key, access) in pending {
            try statement.execute(arguments: [access, key])
        }
    }

    // MARK: Removing

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: String) throws -> Bool {
        try removeRows(where: "key = ?", values: [key], truncatingLog: false) > 0
    }

    /// Removes every entry the filter selects, exactly, and purges their bytes from the WAL.
    @discardableResult
    public func removeAll(matching filter: CacheScopeFilter) throws -> Int {
        switch filter {
        case .user(let id): try removeRows(where: "user_id = ?", values: [id])
        case .account(let id): try removeRows(where: "account_id = ?", values: [id])
        case .tag(let tag): try removeRows(where: "key IN (SELECT key FROM entry_tag WHERE tag = ?)", values: [tag])
        }
    }

    /// Returns how many rows were removed. With `truncatingLog`, the WAL is checkpointed and
    /// truncated afterwards so no old page image of the removed rows stays on disk (scope removals:
    /// account switch, user removal); a single key's removal skips that cost.
    private func removeRows(where condition: String, values: [String], truncatingLog: Bool = true) throws -> Int {
        changes?.storeWillChange()
        defer { changes?.storeDidChange() }
        guard let connection = try database(creating: false) else { return 0 }
        let removed = try connection.write { db in
            let (rows, freed) = try deleteEntries(db, where: condition, values: values)
            state.withLock { $0.totalBytes -= freed }
            return rows
        }
        // Recency noted for removed keys is harmless: updating a missing row does nothing.
        if removed > 0, truncatingLog {
            // Busy readers can make this a partial checkpoint; the next removal tries again.
            _ = try? connection.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        }
        return removed
    }

    /// Deletes `entry` rows matching `condition` once per value; returns the rows and bytes freed.
    private func deleteEntries(_ db: Database, where condition: String, values: [String]) throws -> (rows: Int, bytes: Int) {
        let statement = try db.cachedStatement(sql: "DELETE FROM entry WHERE \(condition) RETURNING size")
        var rows = 0
        var bytes = 0
        for value in values {
            let sizes = try Int.fetchAll(statement, arguments: [value])
            rows += sizes.count
            bytes += sizes.reduce(0, +)
        }
        return (rows, bytes)
    }
}
