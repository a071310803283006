import APICore
import CacheKit
import Foundation

/// Records in memory, behind a lock, within a byte limit and a record limit: when a write goes over
/// either, the least recently used records (read or written) are evicted until both are back under
/// 90% of their limit, so evictions come in batches rather than on every write. Expired records stay
/// until they are evicted or cleared: a stale record still serves an offline read, and freshness
/// belongs to the query reading it, not to the record. As with ``SQLiteRecordStore``, evicting a
/// record leaves the fields that referenced it pointing nowhere; reading one is a miss, so the query
/// is fetched again.
public final class InMemoryRecordStore: NormalizedRecordStore {
    /// How much the store may hold.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of records (keys plus packed records) kept. 20 MB by default.
        public var byteLimit: Int
        /// The most records kept. 100,000 by default.
        public var recordLimit: Int

        /// Creates limits.
        public init(byteLimit: Int = 20 * 1024 * 1024, recordLimit: Int = 100_000) {
            self.byteLimit = byteLimit
            self.recordLimit = recordLimit
        }
    }

    private struct Entry {
        var record: NormalizedRecord
        var lastUsed: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var evicted = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }

        static func size(_ key: String, _ record: NormalizedRecord) -> Int { key.utf8.count + record.estimatedBytes }
    }

    /// The limits.
    public let limits: Limits
    private let state = Locked(State())

    /// Creates an empty store.
    /// - Parameter limits: 20 MB and 100,000 records unless given.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The record under `key`; the read makes it the most recently used.
    public func record(forKey key: String) -> NormalizedRecord? {
        state.withLock { state in
            let now = state.tick()
            state.entries[key]?.lastUsed = now
            return state.entries[key]?.record
        }
    }

    /// Merges field by field; returns the changed fields. Evicts least recently used records when
    /// the store goes over a limit.
    @discardableResult
    public func merge(_ incoming: [String: NormalizedRecord]) -> Set<FieldPath> {
        state.withLock { state in
            var changed: Set<FieldPath> = []
            for (key, record) in incoming {
                let now = state.tick()
                guard var existing = state.entries[key] else {
                    state.entries[key] = Entry(record: record, lastUsed: now)
                    state.bytes += State.size(key, record)
                    for field in record.keys { changed.insert(FieldPath(key, field)) }
                    continue
                }
                state.bytes -= State.size(key, existing.record)
                for field in existing.record.merge(record) { changed.insert(FieldPath(key, field)) }
                existing.lastUsed = now
                state.bytes += State.size(key, existing.record)
                state.entries[key] = existing
            }
            if state.bytes > limits.byteLimit || state.entries.count > limits.recordLimit {
                evict(&state, toBytes: limits.byteLimit / 10 * 9, records: limits.recordLimit / 10 * 9)
            }
            return changed
        }
    }

    /// Evicts least recently used records until they take at most `bytes` (the app-wide budget).
    public func trim(toBytes bytes: Int) {
        state.withLock { state in
            if state.bytes > bytes { evict(&state, toBytes: max(0, bytes), records: state.entries.count) }
        }
    }

    private func evict(_ state: inout State, toBytes byteTarget: Int, records countTarget: Int) {
        for (key, entry) in state.entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard state.bytes > byteTarget || state.entries.count > countTarget else { break }
            state.entries[key] = nil
            state.bytes -= State.size(key, entry.record)
            state.evicted += 1
        }
    }

    /// Removes the selected records and the references to them; returns the removed fields.
    @discardableResult
    public func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) -> Set<FieldPath> {
        state.withLock { state in
            let removed = state.entries.filter { predicate($0.key, $0.value.record) }
            guard !removed.isEmpty else { return [] }
            var changed: Set<FieldPath> = []
            for (key, entry) in removed {
                state.entries[key] = nil
                state.bytes -= State.size(key, entry.record)
                changed.formUnion(entry.record.fieldPaths(key: key))
            }
            let removedKeys = Set(removed.keys)
            for (key, entry) in state.entries {
                for field in entry.record.fields(referencing: removedKeys) {
                    remove(field, of: key, in: &state)
                    changed.insert(FieldPath(key, field))
                }
            }
            return changed
        }
    }

    /// Removes these fields; returns those that were present.
    @discardableResult
    public func removeFields(_ fields: [String: Set<String>]) -> Set<FieldPath> {
        state.withLock { state in
            var changed: Set<FieldPath> = []
            for (key, names) in fields {
                for name in names where remove(name, of: key, in: &state) {
                    changed.insert(FieldPath(key, name))
                }
            }
            return changed
        }
    }

    /// Removes one field, keeping the byte count exact; whether it was there.
    @discardableResult
    private func remove(_ field: String, of key: String, in state: inout State) -> Bool {
        guard var entry = state.entries[key] else { return false }
        state.bytes -= State.size(key, entry.record)
        let removed = entry.record.remove(field)
        state.bytes += State.size(key, entry.record)
        state.entries[key] = entry
        return removed
    }

    /// Marks every field as written at the distant past.
    public func expireAll() {
        state.withLock { state in
            for key in state.entries.keys {
                state.entries[key]?.record.restamp(.distantPast)
            }
            state.bytes = state.entries.reduce(0) { $0 + State.size($1.key, $1.value.record) }
        }
    }

    /// Removes everything.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    /// The number of records and their size.
    public func usage() -> CacheStoreUsage {
        state.withLock { CacheStoreUsage(count: $0.entries.count, bytes: $0.bytes) }
    }

    /// Every record, described for the debug export.
    public func describeRecords() -> [CacheEntryDescription] {
        state.withLock { state in state.entries.map { $0.value.record.description(key: $0.key) } }
    }

    /// How many records are stored.
    public var count: Int { state.withLock { $0.entries.count } }

    /// How many records the limits have evicted since the store was created.
    public var evictedCount: Int { state.withLock { $0.evicted } }
}
