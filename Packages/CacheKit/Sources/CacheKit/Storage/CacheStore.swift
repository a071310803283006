import Foundation

/// A key-value store of cache entries with per-entry expiry, scope and LRU eviction.
///
/// ``MemoryStore`` and ``DiskStore`` conform and pass the same conformance suite. Requirements are
/// synchronous: both stores are thread-safe and do their work under a short lock (memory) or in
/// SQLite (disk), so callers on any task can use them without hopping to an actor.
public protocol CacheStore<Value>: AnyObject, Sendable {
    /// The type of value the store holds.
    associatedtype Value: Sendable

    /// The store's name, used as the `store` dimension of its metrics.
    var name: String { get }

    /// The fresh entry for `key`, if the requester may see it.
    ///
    /// An expired entry is reported as a miss (counted as an expiration) and stays, readable as stale
    /// through ``peek(_:requester:)`` until it is evicted or cleared: last known data for offline use.
    /// An entry that belongs to another user is a miss. A hit marks the entry most recently used.
    /// - Parameters:
    ///   - key: the entry's key.
    ///   - requester: the signed-in user's id, or `nil` when nobody is signed in.
    func get(_ key: String, requester: String?) throws -> CacheEntry<Value>?

    /// The entry for `key`, fresh or stale, if the requester may see it, without touching LRU order or
    /// metrics. For revalidation (an HTTP cache sends the stale entry's validators) and inspection.
    func peek(_ key: String, requester: String?) throws -> CacheEntry<Value>?

    /// Stores `value` under `key`, replacing any entry there, then evicts least recently used entries
    /// until the store is within its limits. A value larger than the whole limit is not stored.
    func set(_ value: Value, forKey key: String, metadata: CacheEntryMetadata) throws

    /// Removes the entry for `key`. Returns whether there was one.
    @discardableResult
    func remove(_ key: String) throws -> Bool

    /// Removes every entry the filter selects, exactly. Returns how many were removed.
    @discardableResult
    func removeAll(matching filter: CacheScopeFilter) throws -> Int

    /// Removes every entry. For a disk store the data is gone from disk, not just forgotten.
    func removeAll() throws

    /// Recomputes every entry's expiry date from its metadata (after a settings change). The
    /// closure returns the new `expiresAt`.
    func restamp(_ expiry: @Sendable (CacheEntryMetadata) -> Date?) throws

    /// The number of entries and their total size in bytes.
    func usage() throws -> CacheStoreUsage

    /// Evicts least recently used entries until the total size is at most `bytes` (the app-wide
    /// budget, ``UnifiedCacheManager/enforceBudget()``); returns how many were evicted.
    @discardableResult
    func trim(toBytes bytes: Int) throws -> Int

    /// Every entry's key, size and metadata, for statistics and debugging exports.
    func describeEntries() throws -> [CacheEntryDescription]
}

/// How full a store is.
public struct CacheStoreUsage: Sendable, Hashable, Codable {
    /// The number of entries.
    public var count: Int
    /// Their total size in bytes, as the store counts it.
    public var bytes: Int

    /// Creates a usage figure.
    public init(count: Int, bytes: Int) {
        self.count = count
        self.bytes = bytes
    }
}

/// Trims a memory store and an optional disk store together to at most `bytes`, each to its share
/// in proportion to what it holds now (what a participant with both does for the app-wide budget).
/// - Throws: the disk store's error.
public func trimStores<Value>(memory: MemoryStore<Value>, disk: DiskStore?, toBytes bytes: Int) throws {
    let inMemory = memory.usage().bytes
    let onDisk = try disk?.usage().bytes ?? 0
    let total = inMemory + onDisk
    guard total > bytes else { return }
    let budget = max(0, bytes)
    let memoryShare = total == 0 ? 0 : Int((Double(budget) * Double(inMemory) / Double(total)).rounded(.down))
    memory.trim(toBytes: memoryShare)
    try disk?.trim(toBytes: budget - memoryShare)
}
