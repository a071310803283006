import Foundation

/// An in-memory cache store with O(1) get, set and remove, a count limit, a cost limit in bytes and an
/// expiry date per entry. It evicts by the second-chance rule (CLOCK), an approximation of least recently
/// used whose hit never re-links the list: a read sets one bit, eviction spares entries read since it last
/// passed them (see `BENCHMARKS.md` for its hit rate against a true LRU on the same traces).
///
/// Thread-safe: one lock guards the table, so any task can use it without an actor hop. Values are
/// kept as they are (no encoding), so a hit costs a hash lookup, a bit, and a copy; the clock is read only
/// for entries that expire.
///
/// ```swift
/// let store = MemoryStore<Data>(limits: .init(countLimit: 1_000, costLimit: 10_000_000), cost: { $0.count })
/// store.set(data, forKey: "catalog:page:1", metadata: .init(storedAt: clock.now(), expiresAt: expiry))
/// ```
public final class MemoryStore<Value: Sendable>: CacheStore {
    /// How much a memory store may hold before it evicts its least recently used entries.
    public struct Limits: Sendable, Hashable {
        /// The most entries kept.
        public var countLimit: Int
        /// The most total cost kept, in bytes as the `cost` function counts them.
        public var costLimit: Int

        /// Creates limits; the defaults are 10,000 entries and 20 MB.
        public init(countLimit: Int = 10_000, costLimit: Int = 20 * 1024 * 1024) {
            self.countLimit = countLimit
            self.costLimit = costLimit
        }
    }

    /// The store's name, the `store` dimension of its metrics.
    public let name: String
    /// The store's limits.
    public let limits: Limits
    @usableFromInline let clock: any CacheClock
    @usableFromInline let cost: @Sendable (Value) -> Int
    @usableFromInline let metrics: CacheMetrics
    @usableFromInline let table = Locked(SecondChanceTable<Value>())

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - name: the `store` dimension of its metrics.
    ///   - limits: the count and cost limits.
    ///   - clock: the source of "now" for expiry.
    ///   - metrics: where hits, misses, expirations and evictions are counted.
    ///   - cost: the size of a value in bytes, for the cost limit (for `Data`, pass `{ $0.count }`).
    public init(
        name: String = "memory",
        limits: Limits = Limits(),
        clock: any CacheClock = SystemClock(),
        metrics: CacheMetrics? = nil,
        cost: @escaping @Sendable (Value) -> Int = { _ in 0 }
    ) {
        self.name = name
        self.limits = limits
        self.clock = clock
        self.cost = cost
        self.metrics = metrics ?? CacheMetrics(store: name, feature: "-")
    }

    /// The fresh entry for `key` if `requester` may see it; see ``CacheStore/get(_:requester:)``.
    @inlinable
    public func get(_ key: String, requester: String? = nil) -> CacheEntry<Value>? {
        var outcome = LookupStatus.miss
        let entry: CacheEntry<Value>? = table.withLock { table in
            guard let slot = table.slot(of: key) else { return nil }
            return table.nodes.withUnsafeMutableBufferPointer { nodes in
                guard nodes[slot].metadata.scope.isVisible(to: requester) else { return nil }
                // An expired entry stays, readable as stale through `peek`, until evicted or cleared.
                if let expiresAt = nodes[slot].metadata.expiresAt, clock.coarseNow() >= expiresAt {
                    outcome = .expired
                    return nil
                }
                if !nodes[slot].referenced { nodes[slot].referenced = true }
                outcome = .hit
                return CacheEntry(value: nodes[slot].value, metadata: nodes[slot].metadata)
            }
        }
        metrics.record(outcome)
        return entry
    }

    /// The entry for `key`, fresh or stale, without touching recency or metrics.
    @inlinable
    public func peek(_ key: String, requester: String? = nil) -> CacheEntry<Value>? {
        table.withLock { table in
            guard let slot = table.slot(of: key) else { return nil }
            let node = table.nodes[slot]
            guard node.metadata.scope.isVisible(to: requester) else { return nil }
            return CacheEntry(value: node.value, metadata: node.metadata)
        }
    }

    /// Stores `value`, then evicts entries (second chance, oldest first) until within ``limits``. A value whose
    /// cost alone exceeds the cost limit is not stored (and any older entry under `key` is removed).
    @inlinable
    public func set(_ value: Value, forKey key: String, metadata: CacheEntryMetadata) {
        set(value, forKey: key, metadata: metadata, cost: cost(value))
    }

    /// Stores `value` with a cost the caller already knows (for example its encoded size), instead of
    /// the store's `cost` function.
    @inlinable
    public func set(_ value: Value, forKey key: String, metadata: CacheEntryMetadata, cost: Int) {
        let cost = max(0, cost)
        let evicted: Int = table.withLock { table in
            guard cost <= limits.costLimit, limits.countLimit > 0 else {
                if let slot = table.slot(of: key) { table.remove(at: slot) }
                return 1
            }
            table.upsert(key, value: value, metadata: metadata, cost: cost)
            var evicted = 0
            while table.count > limits.countLimit || table.totalCost > limits.costLimit,
                let victim = table.victimSlot()
            {
                table.remove(at: victim)
                evicted += 1
            }
            return evicted
        }
        metrics.recordWrite()
        metrics.recordEvictions(evicted)
    }

    /// Evicts entries (second chance, oldest first) until the total cost is at most `bytes` (the app-wide
    /// budget); returns how many were evicted.
    @discardableResult
    public func trim(toBytes bytes: Int) -> Int {
        let evicted: Int = table.withLock { table in
            var evicted = 0
            while table.totalCost > max(0, bytes), let victim = table.victimSlot() {
                table.remove(at: victim)
                evicted += 1
            }
            return evicted
        }
        metrics.recordEvictions(evicted)
        return evicted
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: String) -> Bool {
        table.withLock { table in
            guard let slot = table.slot(of: key) else { return false }
            table.remove(at: slot)
            return true
        }
    }

    /// Removes every entry the filter selects; returns how many.
    @discardableResult
    public func removeAll(matching filter: CacheScopeFilter) -> Int {
        table.withLock { $0.removeAll { filter.matches($0.metadata.scope) } }
    }

    /// Removes every entry and releases the memory.
    public func removeAll() {
        let old = table.withLock { table in
            let old = table
            table.removeAll()
            return old
        }
        _ = old  // values are released here, outside the lock
    }

    /// Recomputes every entry's expiry date.
    public func restamp(_ expiry: @Sendable (CacheEntryMetadata) -> Date?) {
        table.withLock { $0.updateMetadata { $0.expiresAt = expiry($0) } }
    }

    /// The number of entries and their total cost.
    public func usage() -> CacheStoreUsage {
        table.withLock { CacheStoreUsage(count: $0.count, bytes: $0.totalCost) }
    }

    /// Every entry's key, cost and metadata, the last to be evicted first.
    public func describeEntries() -> [CacheEntryDescription] {
        table.withLock { table in
            table.keysByRecency.compactMap { key in
                table.slot(of: key).map {
                    CacheEntryDescription(key: key, bytes: table.nodes[$0].cost, metadata: table.nodes[$0].metadata)
                }
            }
        }
    }

    /// Keys in the order eviction would spare them, the last to go first (for tests and debugging).
    public var keysByRecency: [String] {
        table.withLock { $0.keysByRecency }
    }
}
