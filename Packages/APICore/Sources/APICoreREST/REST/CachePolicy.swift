import APICore

/// How a request or query uses the cache: the five policies of REQ ARC-1, shared by REST and GraphQL.
public enum CachePolicy: Sendable, Hashable, CaseIterable {
    /// Cache first (the default): a fresh cached response is returned with no request; otherwise the
    /// network is asked (revalidating a stale entry when it has validators) and the result stored.
    /// An expired entry counts as a miss.
    case returnCacheDataElseFetch
    /// Network only: the cache is not read, the result is stored (pull-to-refresh, after a mutation).
    case fetchIgnoringCacheData
    /// Cache then network: the cached response now, and a fetch that updates the cache.
    case returnCacheDataAndFetch
    /// Cache only: a fresh cached response or `APIError/notCached`; never a request (offline mode).
    case returnCacheDataDontFetch
    /// No cache: neither read nor written (transient data).
    case fetchIgnoringCacheCompletely

    /// The policy used when a caller does not choose one.
    public static let `default` = CachePolicy.returnCacheDataElseFetch
}
