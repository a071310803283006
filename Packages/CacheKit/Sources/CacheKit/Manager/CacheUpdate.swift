/// Whether a read may be answered from the cache.
public enum CacheRefresh: Sendable, Hashable {
    /// Use a fresh cached value when there is one (cache-first).
    case useCache
    /// Bypass the cache, load, and store the result (pull-to-refresh).
    case forceRefresh
}

/// One value delivered by ``CacheManager/updates(forKey:scope:timeout:refresh:loader:)``.
public struct CacheUpdate<Value: Sendable>: Sendable {
    /// Where a value came from.
    public enum Source: Sendable, Hashable {
        /// The cache, delivered at once.
        case cache
        /// The loader (usually the network).
        case loader
    }

    /// The value.
    public var value: Value
    /// Where it came from.
    public var source: Source

    /// Creates an update.
    public init(value: Value, source: Source) {
        self.value = value
        self.source = source
    }
}
