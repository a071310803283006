import APICore
import CacheKit
import Foundation
import GRDB

// The rows behind ``SQLiteRecordStore``: its connection, row coding, recency and eviction.
extension SQLiteRecordStore {
    static let selectSQL = "SELECT body FROM record WHERE key = ?"

    func database<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try opened().inDatabase(body)
        } catch let error as RecordStoreError {
            throw error
        } catch {
            throw RecordStoreError.database("\(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try opened().write(body)
        } catch let error as RecordStoreError {
            throw error
        } catch {
            throw RecordStoreError.database("\(error)")
        }
    }

    /// Copies the log into the file and empties it, so removed records leave no old page in the log
    /// (`secure_delete` has already zeroed them in the file). A failure is left to the next checkpoint.
    func truncateLog() {
        _ = try? database { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    static func all(_ db: Database) throws -> [String: NormalizedRecord] {
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

    static func save(_ record: NormalizedRecord, key: String, accessed: Int64?, _ db: Database) throws {
        let body = RecordCoding.encode(record)
        try db.cachedStatement(sql: saveSQL).execute(
            arguments: [key, body, record.accountId, key.utf8.count + body.count, accessed ?? 0, accessed])
    }

    private static let saveSQL = """
        INSERT INTO record (key, body, account, size, accessed) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(key) DO UPDATE SET body = excluded.body, account = excluded.account, size = excluded.size,
            accessed = COALESCE(?, accessed)
        """

    static func apply(_ touched: [String: Int64], _ db: Database) throws {
        for (key, accessed) in touched {
            try db.cachedStatement(sql: "UPDATE record SET accessed = MAX(accessed, ?) WHERE key = ?").execute(arguments: [accessed, key])
        }
    }

    /// Evicts least recently used records until they take at most `bytes` (the app-wide budget).
    public func trim(toBytes bytes: Int) throws {
        do {
            try write { db in try evict(db, toBytes: max(0, bytes)) }
        } catch {
            totalBytes.withLock { $0 = nil }
            throw error
        }
    }

    /// What a record's row counts in `size`: its key and its stored form.
    static func size(_ record: NormalizedRecord, key: String) -> Int {
        key.utf8.count + record.bytes.count + 1
    }

    func evict(_ db: Database, toBytes limit: Int? = nil) throws {
        let limit = limit ?? byteLimit
        let known = totalBytes.withLock { $0 }
        var total = try known ?? Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM record") ?? 0
        defer { totalBytes.withLock { $0 = total } }
        guard total > limit else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT key, size FROM record ORDER BY accessed")
        var victims: [String] = []
        while total > limit, let row = try rows.next() {
            victims.append(row[0])
            total -= row[1] as Int
        }
        for key in victims {
            try db.execute(sql: "DELETE FROM record WHERE key = ?", arguments: [key])
            front.remove(key)
        }
    }

    /// Loads the records `record` references into the memory front, and the records those reference, a
    /// level of the tree at a time, up to 500 keys per statement and half the front's bytes in all: a
    /// query then reads its whole tree with a statement per level instead of one per record (an account,
    /// its 1,000 transactions and their merchants after a relaunch: three). A row that does not decode
    /// is left for its own read to report.
    func prefetchReferences(of record: NormalizedRecord, _ db: Database) throws {
        let budget = front.limits.costLimit / 2
        guard budget > 0 else { return }
        var loaded = 0
        var seen: Set<String> = []
        var level = [record]
        while !level.isEmpty, loaded < budget {
            var wanted: [String] = []
            for record in level {
                record.forEachEntry { _, value, _ in
                    for key in value.references where seen.insert(key).inserted && front.peek(key) == nil { wanted.append(key) }
                }
            }
            level = []
            for batch in stride(from: 0, to: wanted.count, by: 500) where loaded < budget {
                let keys = Array(wanted[batch..<min(batch + 500, wanted.count)])
                let marks = Array(repeating: "?", count: keys.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT key, body FROM record WHERE key IN (\(marks))", arguments: StatementArguments(keys))
                while let row = try rows.next() {
                    let key: String = row[0]
                    guard let found = try? Self.decode(row, key: key) else { continue }
                    front.set(found, forKey: key, metadata: Self.frontMetadata)
                    loaded += found.estimatedBytes
                    level.append(found)
                }
            }
        }
    }

    /// The stored record under `key`; one that does not decode counts as absent.
    static func stored(_ key: String, _ db: Database) throws -> NormalizedRecord? {
        try Row.fetchOne(try db.cachedStatement(sql: selectSQL), arguments: [key]).flatMap { try? decode($0, key: key) }
    }

    static func decode(_ row: Row, key: String) throws -> NormalizedRecord {
        guard let body = row["body"] as Data? else { throw RecordStoreError.corrupt(key: key, reason: "no body") }
        do {
            return try RecordCoding.decode(body)
        } catch {
            throw RecordStoreError.corrupt(key: key, reason: "\(error)")
        }
    }
}
