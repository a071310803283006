import APICore
import CacheKit
import Foundation
import GRDB

/// Normalized records in a SQLite file (GRDB), for kits that want offline reads: survives a
/// relaunch, keeps its size under a byte limit by evicting the least recently used records, and
/// migrates files written by older versions. A file that is not a database (truncated, foreign) is
/// deleted and started afresh: it is a cache.
///
/// Evicting a record leaves the fields that referenced it pointing nowhere; reading one is a miss,
/// so the query is fetched again.
///
/// Reads go through a bounded memory front (the packed records, 4 MB unless told): a record read or
/// written recently is answered without SQLite. The front is filled and changed only inside the
/// database's serial queue, so it never holds a record the file has not. Writes use a write-ahead log
/// with `synchronous=NORMAL`: a transaction is in the file or not at all when the process dies.
/// Clearing everything moves the file out of the way at once (`DiscardedFiles`); a new one is started at the next use.
public final class SQLiteRecordStore: NormalizedRecordStore {
    /// The file.
    public let url: URL
    /// Its records are in a file.
    public var persistsAcrossLaunches: Bool { true }
    /// The most bytes of records kept.
    public let byteLimit: Int
    /// The database, opened at first use (building a store opens no file: a relaunch's composition does no SQLite
    /// work); closed when everything is cleared, and a new file opened at the next use.
    let connection = Locked<DatabaseQueue?>(nil)
    /// Recently read or written records, at most `frontByteLimit` bytes of them.
    let front: MemoryStore<NormalizedRecord>
    /// The bytes the records take, kept by writes so eviction need not sum the table; `nil` when unknown
    /// (after a removal or a failed write), summed again at the next write.
    let totalBytes = Locked<Int?>(nil)
    /// Recency of reads, written with the next write (a read never writes).
    private let recency = Locked(Recency())

    private struct Recency {
        var counter: Int64 = 0
        var touched: [String: Int64] = [:]

        mutating func next() -> Int64 {
            counter += 1
            return counter
        }
    }

    /// A store over the file at `url`, opened (or created) at its first use.
    /// - Parameters:
    ///   - url: the database file; its folder is created (0700) if missing.
    ///   - byteLimit: 20 MB unless given.
    ///   - frontByteLimit: the most bytes of records the memory front keeps (4 MB unless given; 0 for none).
    /// - Throws: ``RecordStoreError/database(_:)`` when the file's folder cannot be created. A file that cannot be
    ///   opened at its first use throws the same error from that use.
    public init(url: URL, byteLimit: Int = 20 * 1024 * 1024, frontByteLimit: Int = 4 * 1024 * 1024) throws(RecordStoreError) {
        self.url = url
        self.byteLimit = byteLimit
        front = MemoryStore(
            name: "sqlite-front", limits: .init(countLimit: .max, costLimit: frontByteLimit),
            metrics: CacheMetrics(store: "sqlite-front", feature: "-"), cost: { $0.estimatedBytes })
        DiscardedFiles.sweep(url.deletingLastPathComponent())
        do {
            try ProtectedFiles.createDirectory(url.deletingLastPathComponent())
        } catch {
            throw .database("\(error)")
        }
    }

    /// Opens the file now if it exists and is not open yet (see ``NormalizedRecordStore/prepare()``). Whether the file
    /// exists is asked under the connection's lock, so a clearing that deleted it is never followed by a new one.
    public func prepare() {
        _ = try? opened(creating: false)
    }

    /// The database, opened now if it is not yet: a file that is not a database (truncated, foreign) is deleted and
    /// started afresh, and the recency counter resumes from the file's.
    func opened() throws -> DatabaseQueue {
        // Never nil when creating.
        guard let queue = try opened(creating: true) else { throw RecordStoreError.database("the file was not opened") }
        return queue
    }

    /// The open database; without `creating`, `nil` when there is no file to open.
    private func opened(creating: Bool) throws -> DatabaseQueue? {
        try connection.withLock { connection in
            if let connection { return connection }
            guard creating || FileManager.default.fileExists(atPath: url.path) else { return nil }
            let queue: DatabaseQueue
            do {
                queue = try Self.open(url)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: url.path + suffix)
                }
                queue = try Self.open(url)
            }
            let last = (try? queue.inDatabase { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(accessed), 0) FROM record") }) ?? 0
            recency.withLock { $0.counter = max($0.counter, last) }
            connection = queue
            return queue
        }
    }

    private static func open(_ url: URL) throws -> DatabaseQueue {
        try ProtectedFiles.createDirectory(url.deletingLastPathComponent())
        let queue = try CacheDatabase.open(url, label: "APICore.SQLiteRecordStore", migrator: migrator)
        try ProtectedFiles.protectFile(url)
        return queue
    }

    /// Schema versions. v1 held only the encoded records; v2 adds the owning account, the size and
    /// the recency used for eviction.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE record (key TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL)")
        }
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN account TEXT;
                    ALTER TABLE record ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE record ADD COLUMN accessed INTEGER NOT NULL DEFAULT 0;
                    UPDATE record SET size = length(key) + length(body);
                    CREATE INDEX record_by_accessed ON record(accessed);
                    CREATE INDEX record_by_account ON record(account);
                    """)
        }
        return migrator
    }

    /// The record under `key`.
    /// - Throws: ``RecordStoreError/corrupt(key:reason:)`` when its row does not decode.
    public func record(forKey key: String) throws -> NormalizedRecord? {
        if let cached = front.get(key) {
            recency.withLock { $0.touched[key] = $0.next() }
            return cached.value
        }
        let record: NormalizedRecord? = try database { db in
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: Self.selectSQL), arguments: [key]) else { return nil }
            let record = try Self.decode(row, key: key)
            remember(record, key: key)
            try prefetchReferences(of: record, db)
            return record
        }
        guard let record else { return nil }
        recency.withLock { $0.touched[key] = $0.next() }
        return record
    }

    static let frontMetadata = CacheEntryMetadata(storedAt: .distantPast, expiresAt: nil)

    /// Keeps `record` in the memory front; called inside the database's queue only.
    private func remember(_ record: NormalizedRecord, key: String) {
        front.set(record, forKey: key, metadata: Self.frontMetadata)
    }

    /// Merges field by field; returns the changed fields. Evicts the least recently used records
    /// when the file grows past ``byteLimit``.
    @discardableResult
    public func merge(_ incoming: [String: NormalizedRecord]) throws -> Set<FieldPath> {
        do {
            return try write { db in
                // Records read since the last write get their recency here; written ones get theirs with their row,
                // numbered from a block reserved for this merge: inside the write, so after the file's own (read when
                // it opens).
                let (read, first) = recency.withLock { recency in
                    defer { recency.touched = [:] }
                    let first = recency.counter + 1
                    recency.counter += Int64(incoming.count)
                    return (recency.touched, first)
                }
                let readOnly = read.filter { incoming[$0.key] == nil }
                var changed: Set<FieldPath> = []
                var growth = 0
                for (position, (key, record)) in incoming.enumerated() {
                    let found = try front.peek(key)?.value ?? Self.stored(key, db)
                    var existing = found ?? NormalizedRecord(accountId: record.accountId)
                    for field in existing.merge(record) { changed.insert(FieldPath(key, field)) }
                    growth += Self.size(existing, key: key) - (found.map { Self.size($0, key: key) } ?? 0)
                    try Self.save(existing, key: key, accessed: first + Int64(position), db)
                    remember(existing, key: key)
                }
                totalBytes.withLock { total in total = total.map { $0 + growth } }
                try Self.apply(readOnly, db)
                try self.evict(db)
                return changed
            }
        } catch {
            // The front and the total may hold what the rolled-back transaction wrote: start them afresh.
            front.removeAll()
            totalBytes.withLock { $0 = nil }
            throw error
        }
    }

    /// Removes the selected records and the references to them; returns the removed fields.
    @discardableResult
    public func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<FieldPath> {
        defer { truncateLog() }
        return try write { db in
            let all = try Self.all(db)
            let removed = all.filter { predicate($0.key, $0.value) }
            guard !removed.isEmpty else { return [] }
            front.removeAll()
            totalBytes.withLock { $0 = nil }
            var changed: Set<FieldPath> = []
            for (key, record) in removed {
                try db.execute(sql: "DELETE FROM record WHERE key = ?", arguments: [key])
                changed.formUnion(record.fieldPaths(key: key))
            }
            let removedKeys = Set(removed.keys)
            for (key, var record) in all where removed[key] == nil {
                let stale = record.fields(referencing: removedKeys)
                guard !stale.isEmpty else { continue }
                for field in stale {
                    record.remove(field)
                    changed.insert(FieldPath(key, field))
                }
                try Self.save(record, key: key, accessed: nil, db)
            }
            return changed
        }
    }

    /// Removes these fields; returns those that were present.
    @discardableResult
    public func removeFields(_ fields: [String: Set<String>]) throws -> Set<FieldPath> {
        defer { truncateLog() }
        return try write { db in
            var changed: Set<FieldPath> = []
            for (key, names) in fields {
                guard let row = try Row.fetchOne(try db.cachedStatement(sql: Self.selectSQL), arguments: [key]),
                    var record = try? Self.decode(row, key: key)
                else { continue }
                for name in names where record.remove(name) {
                    changed.insert(FieldPath(key, name))
                }
                front.remove(key)
                try Self.save(record, key: key, accessed: nil, db)
            }
            return changed
        }
    }

    /// Marks every field as written at the distant past.
    public func expireAll() throws {
        try write { db in
            front.removeAll()
            totalBytes.withLock { $0 = nil }
            for (key, var record) in try Self.all(db) {
                record.restamp(.distantPast)
                try Self.save(record, key: key, accessed: nil, db)
            }
        }
    }

    /// Deletes every record at once: the file (with its log) is moved out of the way and deleted in the
    /// background (`DiscardedFiles`), and a new, empty file is created at the next use.
    public func removeAll() throws {
        recency.withLock { $0.touched = [:] }
        try connection.withLock { queue in
            // Closed first: closing waits for a read or a trim running on the connection, which could otherwise put
            // back into the front, or the total, what the clearing removes.
            try? queue?.close()
            queue = nil
            front.removeAll()
            totalBytes.withLock { $0 = nil }
            do {
                try DiscardedFiles.discard(
                    ["", "-wal", "-shm", "-journal"].map { url.path + $0 }, in: url.deletingLastPathComponent())
            } catch {
                throw RecordStoreError.database("\(error)")
            }
        }
    }

    /// The number of records and the bytes they take.
    public func usage() throws -> CacheStoreUsage {
        try database { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM record")
            return CacheStoreUsage(count: row?[0] ?? 0, bytes: row?[1] ?? 0)
        }
    }

    /// Every record, described for the debug export; a row that does not decode is skipped.
    public func describeRecords() throws -> [CacheEntryDescription] {
        try database { db in
            try Row.fetchAll(db, sql: "SELECT key, body FROM record ORDER BY key").compactMap { row in
                let key: String = row[0]
                return (try? Self.decode(row, key: key))?.description(key: key)
            }
        }
    }
}
