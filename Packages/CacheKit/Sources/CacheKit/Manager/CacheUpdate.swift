/// Whether a read may be answered from the cache.
public enum CacheRefresh: Sendable, Hashable {
    /// Use a fresh cached value when there is one (cache-first).
    case useCache
    /// Bypass the cache, load, and store the result (pull-to-refresh).
    case forceRefresh
}

/// Whether a read may return a value past its timeout (the last known data).
public enum StaleReads: Sendable, Hashable {
    /// Never: an expired value is a miss and the loader runs (the default).
    case never
    /// Only when the loader fails: the last known value is returned, labelled
    /// ``Freshness/State-swift.enum/offline`` with its age (offline use).
    case ifLoadFails
    /// At once, labelled ``Freshness/State-swift.enum/stale``, while the loader refreshes the cache in
    /// the background (stale-while-revalidate); a miss still waits for the loader.
    case whileRevalidating
}

/// One value delivered by a ``CacheManager``, with where it came from and how old it is.
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
    /// When it was stored, its age, and whether it is fresh, stale or served offline.
    public var freshness: Freshness

    /// Creates an update.
    public init(value: Value, source: Source, freshness: Freshness) {
        self.value = value
        self.source = source
        self.freshness = freshness
    }
}
