import CacheKit
import Foundation
import Synchronization

/// Where normalized records live. ``InMemoryRecordStore`` is the default (seed decision 4: financial
/// data stays in memory).
public protocol NormalizedRecordStore: Sendable {
    /// The record under `key`, if any.
    /// - Throws: ``RecordStoreError/corrupt(key:reason:)`` for a stored record that does not decode.
    func record(forKey key: String) throws -> NormalizedRecord?
    /// Merges records field by field (fields not in `records` are kept) and returns every field
    /// whose value changed.
    @discardableResult
    func merge(_ records: [String: NormalizedRecord]) throws -> Set<FieldPath>
    /// Removes the records the predicate selects, and every field elsewhere that references one of
    /// them (so a read that meets it is a miss). Returns every field removed.
    @discardableResult
    func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<FieldPath>
    /// Removes these fields (`[recordKey: fieldKeys]`); returns those that were present.
    @discardableResult
    func removeFields(_ fields: [String: Set<String>]) throws -> Set<FieldPath>
    /// Marks every field as written long ago, so every query reading it is stale ("clear timestamps").
    func expireAll() throws
    /// Removes everything.
    func removeAll() throws
    /// How many records are stored and roughly how many bytes they take.
    func usage() throws -> CacheStoreUsage
    /// Every record's key, size, account and oldest field write, for the debug export (values are
    /// never included). A record that does not decode is skipped.
    func describeRecords() throws -> [CacheEntryDescription]
}

/// Why a record store failed.
public enum RecordStoreError: Error, Sendable, Hashable {
    /// A stored record does not decode (a truncated row, a foreign schema); it should be dropped.
    case corrupt(key: String, reason: String)
    /// The database could not be opened, read or written.
    case database(String)
}

extension NormalizedRecord {
    /// Every field of this record.
    func fieldPaths(key: String) -> Set<FieldPath> {
        Set(keys.map { FieldPath(key, $0) })
    }

    /// The fields that reference any of `keys`.
    func fields(referencing keys: Set<String>) -> [String] {
        fields.filter { !Set($0.value.references).isDisjoint(with: keys) }.map(\.key)
    }

    /// The packed size in bytes.
    var estimatedBytes: Int { bytes.count }

    /// How the debug export shows this record: stored when its oldest field was written, tagged with
    /// its account. Freshness depends on the query reading it, so it has no expiry of its own.
    func description(key: String) -> CacheEntryDescription {
        CacheEntryDescription(key: key, bytes: key.utf8.count + estimatedBytes, metadata: CacheEntryMetadata(
            storedAt: writtenAt.values.min() ?? .distantPast, expiresAt: nil, scope: CacheScope(accountId: accountId)))
    }
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
    public func merge(_ incoming: [String: NormalizedRecord]) -> Set<FieldPath> {
        records.withLock { records in
            var changed: Set<FieldPath> = []
            for (key, record) in incoming {
                guard var existing = records[key] else {
                    records[key] = record
                    for field in record.keys { changed.insert(FieldPath(key, field)) }
                    continue
                }
                for field in existing.merge(record) { changed.insert(FieldPath(key, field)) }
                records[key] = existing
            }
            return changed
        }
    }

    /// Removes the selected records and the references to them; returns the removed fields.
    @discardableResult
    public func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) -> Set<FieldPath> {
        records.withLock { records in
            let removed = records.filter { predicate($0.key, $0.value) }
            guard !removed.isEmpty else { return [] }
            var changed: Set<FieldPath> = []
            for (key, record) in removed {
                records[key] = nil
                changed.formUnion(record.fieldPaths(key: key))
            }
            let removedKeys = Set(removed.keys)
            for (key, record) in records {
                for field in record.fields(referencing: removedKeys) {
                    records[key]?.remove(field)
                    changed.insert(FieldPath(key, field))
                }
            }
            return changed
        }
    }

    /// Removes these fields; returns those that were present.
    @discardableResult
    public func removeFields(_ fields: [String: Set<String>]) -> Set<FieldPath> {
        records.withLock { records in
            var changed: Set<FieldPath> = []
            for (key, names) in fields {
                for name in names where records[key]?.remove(name) == true {
                    changed.insert(FieldPath(key, name))
                }
            }
            return changed
        }
    }

    /// Marks every field as written at the distant past.
    public func expireAll() {
        records.withLock { records in
            records = records.mapValues { record in
                var record = record
                record.restamp(.distantPast)
                return record
            }
        }
    }

    /// Removes everything.
    public func removeAll() {
        records.withLock { $0.removeAll() }
    }

    /// The number of records and their estimated size.
    public func usage() -> CacheStoreUsage {
        records.withLock { records in
            CacheStoreUsage(count: records.count,
                            bytes: records.reduce(0) { $0 + $1.key.utf8.count + $1.value.estimatedBytes })
        }
    }

    /// Every record, described for the debug export.
    public func describeRecords() -> [CacheEntryDescription] {
        records.withLock { records in records.map { $0.value.description(key: $0.key) } }
    }

    /// How many records are stored.
    public var count: Int { records.withLock { $0.count } }
}
