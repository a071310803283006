import Foundation
import Synchronization

/// Where normalized records live. ``InMemoryRecordStore`` is the default (seed decision 4: financial
/// data stays in memory).
public protocol NormalizedRecordStore: Sendable {
    /// The record under `key`, if any.
    func record(forKey key: String) throws -> NormalizedRecord?
    /// Merges records field by field (fields not in `records` are kept) and returns the
    /// `key.field` of every field whose value changed.
    @discardableResult
    func merge(_ records: [String: NormalizedRecord]) throws -> Set<String>
    /// Removes the records the predicate selects, and every field elsewhere that references one of
    /// them (so a read that meets it is a miss). Returns the removed keys.
    @discardableResult
    func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<String>
    /// Removes everything.
    func removeAll() throws
}

/// Records in memory, behind a lock.
public final class InMemoryRecordStore: NormalizedRecordStore {
    private let records = Mutex<[String: NormalizedRecord]>([:])

    /// Creates an empty store.
    public init() {}

    /// The record under `key`.
    public func record(forKey key: String) -> NormalizedRecord? {
        records.withLock { $0[key] }
    }

    /// Merges field by field; returns the changed fields.
    @discardableResult
    public func merge(_ incoming: [String: NormalizedRecord]) -> Set<String> {
        records.withLock { records in
            var changed: Set<String> = []
            for (key, record) in incoming {
                var existing = records[key] ?? NormalizedRecord(accountId: record.accountId)
                for (field, value) in record.fields {
                    if existing.fields[field] != value { changed.insert("\(key).\(field)") }
                    existing.fields[field] = value
                    existing.writtenAt[field] = record.writtenAt[field] ?? existing.writtenAt[field]
                }
                if let account = record.accountId { existing.accountId = account }
                records[key] = existing
            }
            return changed
        }
    }

    /// Removes the selected records and the references to them.
    @discardableResult
    public func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) -> Set<String> {
        records.withLock { records in
            let removed = Set(records.filter { predicate($0.key, $0.value) }.keys)
            guard !removed.isEmpty else { return [] }
            for key in removed { records[key] = nil }
            for (key, record) in records {
                let stale = record.fields.filter { !Set($0.value.references).isDisjoint(with: removed) }.keys
                for field in stale {
                    records[key]?.fields[field] = nil
                    records[key]?.writtenAt[field] = nil
                }
            }
            return removed
        }
    }

    /// Removes everything.
    public func removeAll() {
        records.withLock { $0.removeAll() }
    }

    /// How many records are stored.
    public var count: Int { records.withLock { $0.count } }
}
