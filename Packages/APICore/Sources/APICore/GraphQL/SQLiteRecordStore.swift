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
public final class SQLiteRecordStore: NormalizedRecordStore {
    /// The file.
    public let url: URL
    /// The most bytes of records kept.
    public let byteLimit: Int
    private let queue: DatabaseQueue
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

    /// Opens (or creates) the store at `url`.
    /// - Parameter byteLimit: 20 MB unless given.
    /// - Throws: ``RecordStoreError/database(_:)`` when the folder cannot hold a database at all.
    public init(url: URL, byteLimit: Int = 20 * 1024 * 1024) throws(RecordStoreError) {
        self.url = url
        self.byteLimit = byteLimit
        do {
            queue = try Self.open(url)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: url.path + suffix)
            }
            do {
                queue = try Self.open(url)
            } catch {
                throw .database("\(error)")
            }
        } catch {
            throw .database("\(error)")
        }
        let last = (try? queue.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(accessed), 0) FROM record") }) ?? 0
        recency.withLock { $0.counter = last }
    }

    private static func open(_ url: URL) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "APICore.SQLiteRecordStore"
        configuration.prepareDatabase { db in
            // Deleted records (a logout) are overwritten on disk, not just unlinked.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try migrator.migrate(queue)
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
        let row = try database { db in try Row.fetchOne(try db.cachedStatement(sql: Self.selectSQL), arguments: [key]) }
        guard let row else { return nil }
        recency.withLock { $0.touched[key] = $0.next() }
        return try Self.decode(row, key: key)
    }

    /// Merges field by field; returns the changed fields. Evicts the least recently used records
    /// when the file grows past ``byteLimit``.
    @discardableResult
    public func merge(_ incoming: [String: NormalizedRecord]) throws -> Set<FieldPath> {
        let touched = recency.withLock { recency in
            defer { recency.touched = [:] }
            var touched = recency.touched
            for key in incoming.keys { touched[key] = recency.next() }
            return touched
        }
        return try write { db in
            var changed: Set<FieldPath> = []
            for (key, record) in incoming {
                let row = try Row.fetchOne(try db.cachedStatement(sql: Self.selectSQL), arguments: [key])
                var existing = (row.flatMap { try? Self.decode($0, key: key) }) ?? NormalizedRecord(accountId: record.accountId)
                for field in existing.merge(record) { changed.insert(FieldPath(key, field)) }
                try Self.save(existing, key: key, accessed: touched[key] ?? 0, db)
            }
            try Self.apply(touched, db)
            try self.evict(db)
            return changed
        }
    }

    /// Removes the selected records and the references to them; returns the removed fields.
    @discardableResult
    public func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<FieldPath> {
        try write { db in
            let all = try Self.all(db)
            let removed = all.filter { predicate($0.key, $0.value) }
            guard !removed.isEmpty else { return [] }
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
        try write { db in
            var changed: Set<FieldPath> = []
            for (key, names) in fields {
                guard let row = try Row.fetchOne(try db.cachedStatement(sql: Self.selectSQL), arguments: [key]),
                    var record = try? Self.decode(row, key: key)
                else { continue }
                for name in names where record.remove(name) {
                    changed.insert(FieldPath(key, name))
                }
                try Self.save(record, key: key, accessed: nil, db)
            }
            return changed
        }
    }

    /// Marks every field as written at the distant past.
    public func expireAll() throws {
        try write { db in
            for (key, var record) in try Self.all(db) {
                record.restamp(.distantPast)
                try Self.save(record, key: key, accessed: nil, db)
            }
        }
    }

    /// Deletes every record (and, with `secure_delete`, overwrites their pages).
    public func removeAll() throws {
        recency.withLock { $0.touched = [:] }
        try write { db in try db.execute(sql: "DELETE FROM record") }
        try database { db in try db.execute(sql: "VACUUM") }
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

    // MARK: Rows

    private static let selectSQL = "SELECT body FROM record WHERE key = ?"

    private func database<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase(body)
        } catch let error as RecordStoreError {
            throw error
        } catch {
            throw RecordStoreError.database("\(error)")
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.write(body)
        } catch let error as RecordStoreError {
            throw error
        } catch {
            throw RecordStoreError.database("\(error)")
        }
    }

    private static func all(_ db: Database) throws -> [String: NormalizedRecord] {
        var records: [String: NormalizedRecord] = [:]
        var corrupt: [String] = []
        for row in try Row.fetchAll(db, sql: "SELECT key, body FROM record") {
            let key: String = row[0]
            if let record = try? decode(row, key: key) {
                records[key] = record
            } else {
                corrupt.append(key)
            }
        }
        for key in corrupt { try db.execute(sql: "DELETE FROM record WHERE key = ?", arguments: [key]) }
        return records
    }

    private static func save(_ record: NormalizedRecord, key: String, accessed: Int64?, _ db: Database) throws {
        let body = RecordCoding.encode(record)
        try db.execute(
            sql: """
                INSERT INTO record (key, body, account, size, accessed) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET body = excluded.body, account = excluded.account, size = excluded.size,
                    accessed = COALESCE(?, accessed)
                """, arguments: [key, body, record.accountId, key.utf8.count + body.count, accessed ?? 0, accessed])
    }

    private static func apply(_ touched: [String: Int64], _ db: Database) throws {
        for (key, accessed) in touched {
            try db.execute(sql: "UPDATE record SET accessed = MAX(accessed, ?) WHERE key = ?", arguments: [accessed, key])
        }
    }

    /// Evicts least recently used records until they take at most `bytes` (the app-wide budget).
    public func trim(toBytes bytes: Int) throws {
        try write { db in try evict(db, toBytes: max(0, bytes)) }
    }

    private func evict(_ db: Database, toBytes limit: Int? = nil) throws {
        let limit = limit ?? byteLimit
        var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM record") ?? 0
        guard total > limit else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT key, size FROM record ORDER BY accessed")
        var victims: [String] = []
        while total > limit, let row = try rows.next() {
            victims.append(row[0])
            total -= row[1] as Int
        }
        for key in victims { try db.execute(sql: "DELETE FROM record WHERE key = ?", arguments: [key]) }
    }

    private static func decode(_ row: Row, key: String) throws -> NormalizedRecord {
        guard let body = row["body"] as Data? else { throw RecordStoreError.corrupt(key: key, reason: "no body") }
        do {
            return try RecordCoding.decode(body)
        } catch {
            throw RecordStoreError.corrupt(key: key, reason: "\(error)")
        }
    }
}
