import Foundation
import GRDB
import Logging

// Maintenance and inspection: recency, re-stamping expiries, usage, the entry list.
extension DiskStore {
    /// Counts a hit on `key`, found fresh by a ``peek(_:requester:)``, and keeps it recently used, as
    /// ``get(_:requester:)`` would, without reading it again.
    public func recordHit(_ key: String) {
        markUsed(key)
        metrics.record(.hit)
    }

    /// Keeps `key` recently used: remembered in memory, written with the next write.
    func markUsed(_ key: String) {
        state.withLock { state in
            state.nextAccess += 1
            state.pendingAccess[key] = state.nextAccess
        }
    }

    /// Recomputes every entry's expiry date in one transaction.
    public func restamp(_ expiry: @Sendable (CacheEntryMetadata) -> Date?) throws {
        changes?.storeWillChange()
        defer { changes?.storeDidChange() }
        guard let connection = try database(creating: false) else { return }
        try connection.write { db in
            let rows = try Row.fetchAll(db, sql: Self.selectMetadataSQL)
            let update = try db.cachedStatement(sql: "UPDATE entry SET expires_at = ? WHERE key = ?")
            for row in rows {
                let metadata = try Self.metadata(from: row, startingAt: 2)
                try update.execute(arguments: [expiry(metadata)?.timeIntervalSince1970, try row.decode(String.self, atIndex: 0)])
            }
        }
    }

    /// The number of entries and their total size.
    public func usage() throws -> CacheStoreUsage {
        guard let connection = try database(creating: false) else { return CacheStoreUsage(count: 0, bytes: 0) }
        let count = try connection.inDatabase { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
        return CacheStoreUsage(count: count, bytes: state.withLock { $0.totalBytes })
    }

    /// Every entry's key, size and metadata, most recently used first.
    public func describeEntries() throws -> [CacheEntryDescription] {
        guard let connection = try database(creating: false) else { return [] }
        let pending = state.withLock { $0.pendingAccess }
        let rows = try connection.inDatabase { try Row.fetchAll($0, sql: Self.selectMetadataSQL) }
        return try rows.map { row -> (CacheEntryDescription, Int64) in
            let key = try row.decode(String.self, atIndex: 0)
            let description = CacheEntryDescription(
                key: key, bytes: try row.decode(Int.self, atIndex: 1),
                metadata: try Self.metadata(from: row, startingAt: 2))
            let access = try pending[key] ?? row.decode(Int64.self, atIndex: 8)
            return (description, access)
        }
        .sorted { $0.1 > $1.1 }
        .map(\.0)
    }
}
