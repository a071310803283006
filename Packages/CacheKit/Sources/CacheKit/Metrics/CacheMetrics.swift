import Atomics
import Metrics

/// Counts what happens in one store of one feature, both in process (for ``CacheStatistics``
/// snapshots the CLI prints) and through swift-metrics (for whatever backend the app bootstraps).
///
/// swift-metrics labels: `cache_hits_total`, `cache_misses_total`, `cache_expirations_total`,
/// `cache_evictions_total`, `cache_writes_total`, and for HTTP caches `cache_revalidations_total`,
/// `cache_requests_saved_total` and `cache_bytes_saved_total`, each with the dimensions `store` and
/// `feature`. An expired entry counts as an expiration and as a miss.
public final class CacheMetrics: Sendable {
    /// The store dimension, such as `memory` or `disk`.
    public let store: String
    /// The feature dimension, such as `catalog`.
    public let feature: String

    // Relaxed atomic counters (swift-atomics: lock-free on every OS version, and ThreadSanitizer sees
    // atomics): a hit costs an increment, not a second lock.
    private let hits = ManagedAtomic<Int>(0)
    private let misses = ManagedAtomic<Int>(0)
    private let expirations = ManagedAtomic<Int>(0)
    private let evictions = ManagedAtomic<Int>(0)
    private let writes = ManagedAtomic<Int>(0)
    private let revalidations = ManagedAtomic<Int>(0)
    private let requestsSaved = ManagedAtomic<Int>(0)
    private let bytesSaved = ManagedAtomic<Int>(0)
    private let hitCounter: Counter
    private let missCounter: Counter
    private let expirationCounter: Counter
    private let evictionCounter: Counter
    private let writeCounter: Counter
    private let revalidationCounter: Counter
    private let requestsSavedCounter: Counter
    private let bytesSavedCounter: Counter

    /// Creates counters for one store of one feature. Prefer ``CacheMetricsRegistry/metrics(store:feature:)``,
    /// which keeps them for snapshots.
    ///
    /// - Parameters:
    ///   - store: the store's name, the `store` dimension of every counter.
    ///   - feature: the feature's name, the `feature` dimension.
    ///   - factory: the swift-metrics backend; by default the one the app bootstrapped.
    public init(store: String, feature: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.store = store
        self.feature = feature
        let dimensions = [("store", store), ("feature", feature)]
        hitCounter = Counter(label: "cache_hits_total", dimensions: dimensions, factory: factory)
        missCounter = Counter(label: "cache_misses_total", dimensions: dimensions, factory: factory)
        expirationCounter = Counter(label: "cache_expirations_total", dimensions: dimensions, factory: factory)
        evictionCounter = Counter(label: "cache_evictions_total", dimensions: dimensions, factory: factory)
        writeCounter = Counter(label: "cache_writes_total", dimensions: dimensions, factory: factory)
        revalidationCounter = Counter(label: "cache_revalidations_total", dimensions: dimensions, factory: factory)
        requestsSavedCounter = Counter(label: "cache_requests_saved_total", dimensions: dimensions, factory: factory)
        bytesSavedCounter = Counter(label: "cache_bytes_saved_total", dimensions: dimensions, factory: factory)
    }

    /// Records what a store's `get` found.
    @usableFromInline
    func record(_ status: LookupStatus) {
        switch status {
        case .hit: recordHit()
        case .miss: recordMiss()
        case .expired: recordExpiration()
        }
    }

    /// Records a hit.
    public func recordHit() {
        hits.wrappingIncrement(by: 1, ordering: .relaxed)
        hitCounter.increment()
    }

    /// Records a miss.
    public func recordMiss() {
        misses.wrappingIncrement(by: 1, ordering: .relaxed)
        missCounter.increment()
    }

    /// Records an expired entry found on read: an expiration and a miss.
    public func recordExpiration() {
        expirations.wrappingIncrement(by: 1, ordering: .relaxed)
        expirationCounter.increment()
        recordMiss()
    }

    /// Records `count` entries evicted to stay within limits.
    public func recordEvictions(_ count: Int) {
        guard count > 0 else { return }
        evictions.wrappingIncrement(by: count, ordering: .relaxed)
        evictionCounter.increment(by: Int64(count))
    }

    /// Records a write.
    public func recordWrite() {
        writes.wrappingIncrement(by: 1, ordering: .relaxed)
        writeCounter.increment()
    }

    /// Records a stale entry confirmed by the server (an HTTP 304): the body was not transferred.
    public func recordRevalidation(bytesSaved bytes: Int) {
        revalidations.wrappingIncrement(by: 1, ordering: .relaxed)
        revalidationCounter.increment()
        recordBytesSaved(bytes)
    }

    /// Records a response served from the cache with no request at all.
    public func recordRequestSaved(bytesSaved bytes: Int) {
        requestsSaved.wrappingIncrement(by: 1, ordering: .relaxed)
        requestsSavedCounter.increment()
        recordBytesSaved(bytes)
    }

    private func recordBytesSaved(_ bytes: Int) {
        bytesSaved.wrappingIncrement(by: bytes, ordering: .relaxed)
        bytesSavedCounter.increment(by: Int64(bytes))
    }

    /// The counts so far.
    public func snapshot() -> CacheStatistics {
        CacheStatistics(
            store: store, feature: feature,
            hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed),
            expirations: expirations.load(ordering: .relaxed), evictions: evictions.load(ordering: .relaxed),
            writes: writes.load(ordering: .relaxed), revalidations: revalidations.load(ordering: .relaxed),
            requestsSaved: requestsSaved.load(ordering: .relaxed), bytesSaved: bytesSaved.load(ordering: .relaxed)
        )
    }
}

/// Counts of one store of one feature, or a sum of several.
public struct CacheStatistics: Sendable, Hashable, Codable {
    /// The store dimension (`*` in a sum over stores).
    public var store: String
    /// The feature dimension (`*` in a sum over features).
    public var feature: String
    /// Reads that found a fresh entry.
    public var hits: Int
    /// Reads that found nothing usable, expirations included.
    public var misses: Int
    /// Reads that found an expired entry.
    public var expirations: Int
    /// Entries removed to stay within limits.
    public var evictions: Int
    /// Entries written.
    public var writes: Int
    /// Stale entries the server confirmed unchanged (HTTP 304).
    public var revalidations: Int
    /// Responses served with no request at all.
    public var requestsSaved: Int
    /// Body bytes not transferred thanks to hits and revalidations.
    public var bytesSaved: Int

    /// Creates statistics.
    public init(
        store: String, feature: String, hits: Int = 0, misses: Int = 0, expirations: Int = 0,
        evictions: Int = 0, writes: Int = 0, revalidations: Int = 0, requestsSaved: Int = 0,
        bytesSaved: Int = 0
    ) {
        self.store = store
        self.feature = feature
        self.hits = hits
        self.misses = misses
        self.expirations = expirations
        self.evictions = evictions
        self.writes = writes
        self.revalidations = revalidations
        self.requestsSaved = requestsSaved
        self.bytesSaved = bytesSaved
    }

    /// Hits over reads, 0 when there was no read.
    public var hitRate: Double {
        let reads = hits + misses
        return reads == 0 ? 0 : Double(hits) / Double(reads)
    }

    /// The sum of two sets of counts; dimensions that differ become `*`.
    public static func + (lhs: CacheStatistics, rhs: CacheStatistics) -> CacheStatistics {
        CacheStatistics(
            store: lhs.store == rhs.store ? lhs.store : "*",
            feature: lhs.feature == rhs.feature ? lhs.feature : "*",
            hits: lhs.hits + rhs.hits, misses: lhs.misses + rhs.misses,
            expirations: lhs.expirations + rhs.expirations, evictions: lhs.evictions + rhs.evictions,
            writes: lhs.writes + rhs.writes, revalidations: lhs.revalidations + rhs.revalidations,
            requestsSaved: lhs.requestsSaved + rhs.requestsSaved, bytesSaved: lhs.bytesSaved + rhs.bytesSaved
        )
    }
}

/// Keeps every ``CacheMetrics`` of an app so the CLI can print a snapshot per store and per feature.
///
/// One registry per app (or per test), owned by the composition root: never a process-wide singleton.
public final class CacheMetricsRegistry: Sendable {
    private let all = Locked<[Dimensions: CacheMetrics]>([:])
    private let latencies = Locked<[Dimensions: LatencyRecorder]>([:])

    /// A pair of dimensions as a dictionary key (no string building on the hot path).
    private struct Dimensions: Hashable {
        var first: String
        var second: String
    }

    /// Creates an empty registry.
    public init() {}

    /// The metrics for a store of a feature, created on first use and shared after.
    public func metrics(store: String, feature: String) -> CacheMetrics {
        all.withLock { all in
            let id = Dimensions(first: store, second: feature)
            if let existing = all[id] { return existing }
            let metrics = CacheMetrics(store: store, feature: feature)
            all[id] = metrics
            return metrics
        }
    }

    /// The latency recorder for a feature's responses from one source, created on first use.
    public func latency(feature: String, source: LatencySource) -> LatencyRecorder {
        latencies.withLock { all in
            let id = Dimensions(first: feature, second: source.rawValue)
            if let existing = all[id] { return existing }
            let recorder = LatencyRecorder(feature: feature, source: source)
            all[id] = recorder
            return recorder
        }
    }

    /// Latency percentiles per feature and source, sorted by feature then source.
    public func latencySnapshot() -> [LatencySummary] {
        latencies.withLock { Array($0.values) }
            .map { $0.summary() }
            .sorted { ($0.feature, $0.source.rawValue) < ($1.feature, $1.source.rawValue) }
    }

    /// Every store's and feature's counts, sorted by feature then store.
    public func snapshot() -> [CacheStatistics] {
        all.withLock { Array($0.values) }
            .map { $0.snapshot() }
            .sorted { ($0.feature, $0.store) < ($1.feature, $1.store) }
    }

    /// Counts summed per feature, over its stores.
    public func snapshotByFeature() -> [CacheStatistics] {
        Dictionary(grouping: snapshot(), by: \.feature)
            .map { feature, rows in rows.reduce(CacheStatistics(store: rows[0].store, feature: feature), +) }
            .sorted { $0.feature < $1.feature }
    }

    /// Counts summed per store, over its features.
    public func snapshotByStore() -> [CacheStatistics] {
        Dictionary(grouping: snapshot(), by: \.store)
            .map { store, rows in rows.reduce(CacheStatistics(store: store, feature: rows[0].feature), +) }
            .sorted { $0.store < $1.store }
    }
}
