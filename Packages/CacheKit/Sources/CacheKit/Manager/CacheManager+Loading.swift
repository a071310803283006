import Foundation
import Logging

// Loading through the cache: one load per key at a time, stale reads, updates.
extension CacheManager {
    /// The cached value for `key`, or the loader's result, which is then stored.
    ///
    /// Concurrent calls for the same key and user run the loader once and all receive its result. A
    /// caller that is cancelled stops waiting; the load goes on for the others. With `.forceRefresh`
    /// the cache is not read (pull-to-refresh) but the result is stored. A result that cannot be
    /// stored is still returned (the failure is logged).
    ///
    /// - Parameters:
    ///   - key: the cache key.
    ///   - scope: the requester's scope; the result is stored with it, and `scope.userId` is the requester.
    ///   - timeout: the call site's timeout for the stored result.
    ///   - refresh: `.useCache` (cache-first) or `.forceRefresh`.
    ///   - loader: fetches the value, usually from the network.
    public func value(
        forKey key: String,
        scope: CacheScope = .shared,
        timeout: CacheTimeout = .useDefault,
        refresh: CacheRefresh = .useCache,
        loader: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await read(forKey: key, scope: scope, timeout: timeout, refresh: refresh, stale: .never, loader: loader).value
    }

    /// The cached value for `key` or the loader's result, with where it came from and how old it is;
    /// `stale` decides whether a value past its timeout may answer.
    ///
    /// - `.never`: as ``value(forKey:scope:timeout:refresh:loader:)``.
    /// - `.ifLoadFails`: when the loader throws and a value is cached (however old, even with
    ///   `.forceRefresh`), that value is returned labelled ``Freshness/State-swift.enum/offline``.
    /// - `.whileRevalidating`: an expired value is returned at once, labelled stale, and the loader
    ///   refreshes the cache in the background (its failure is logged).
    /// - Throws: the loader's error when no value may answer instead.
    public func read(
        forKey key: String,
        scope: CacheScope = .shared,
        timeout: CacheTimeout = .useDefault,
        refresh: CacheRefresh = .useCache,
        stale: StaleReads,
        loader: @escaping @Sendable () async throws -> Value
    ) async throws -> CacheUpdate<Value> {
        let requester = scope.userId
        if refresh == .useCache, let fresh = freshEntry(forKey: key, requester: requester) {
            return CacheUpdate(
                value: fresh.value, source: .cache,
                freshness: Freshness(.fresh, storedAt: fresh.metadata.storedAt, now: environment.clock.now()))
        }
        let last = stale == .never ? nil : cached(forKey: key, requester: requester)
        if stale == .whileRevalidating, refresh == .useCache, let last {
            Task {
                do {
                    _ = try await self.load(key, scope: scope, timeout: timeout, loader: loader)
                } catch {
                    self.environment.logger.debug(
                        "Background refresh failed; the stale value stays",
                        metadata: ["key": "\(key.redacted)", "error": "\(error)"])
                }
            }
            return last
        }
        do {
            let loaded = try await load(key, scope: scope, timeout: timeout, loader: loader)
            return CacheUpdate(value: loaded, source: .loader, freshness: .fetched(at: environment.clock.now()))
        } catch {
            guard let last else { throw error }
            environment.logger.info(
                "Served the last known value: the load failed",
                metadata: ["key": "\(key.redacted)", "feature": "\(feature)", "error": "\(error)"])
            return CacheUpdate(value: last.value, source: .cache, freshness: last.freshness.offline)
        }
    }

    /// Stale-while-revalidate: delivers the cached value at once (fresh, or past its timeout and then
    /// labelled stale), then loads, stores the result and delivers it too. With `.forceRefresh` only
    /// the loaded value is delivered. The stream ends after the loaded value, or with the loader's
    /// error (the consumer keeps showing the cached value, now offline).
    /// Cancelling the consumer stops delivery; a shared load goes on for its other callers.
    public nonisolated func updates(
        forKey key: String,
        scope: CacheScope = .shared,
        timeout: CacheTimeout = .useDefault,
        refresh: CacheRefresh = .useCache,
        loader: @escaping @Sendable () async throws -> Value
    ) -> AsyncThrowingStream<CacheUpdate<Value>, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    if refresh == .useCache, let cached = await self.cached(forKey: key, requester: scope.userId) {
                        continuation.yield(cached)
                    }
                    let fresh = try await self.load(key, scope: scope, timeout: timeout, loader: loader)
                    continuation.yield(
                        CacheUpdate(
                            value: fresh, source: .loader,
                            freshness: .fetched(at: self.environment.clock.now())))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func load(
        _ key: String, scope: CacheScope, timeout: CacheTimeout,
        loader: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let flightKey = "\(scope.userId ?? "")\u{1F}\(key)"
        if let flight = inFlight[flightKey] {
            return try await flight.task.value
        }
        nextFlightID += 1
        let id = nextFlightID
        let startedIn = generation
        // The task is isolated to this actor (it starts only once `load` suspends below, after the
        // flight is recorded); the loader itself runs off the actor.
        let task = Task {
            defer { self.endFlight(flightKey, id: id) }
            let value = try await loader()
            self.storeLoaded(value, forKey: key, scope: scope, timeout: timeout, startedIn: startedIn)
            return value
        }
        inFlight[flightKey] = (id, task)
        return try await task.value
    }

    func storeLoaded(
        _ value: Value, forKey key: String, scope: CacheScope, timeout: CacheTimeout,
        startedIn: Int
    ) {
        guard startedIn == generation else {
            environment.logger.debug("Load finished after a clear; not stored", metadata: ["key": "\(key.redacted)"])
            return
        }
        do {
            try set(value, forKey: key, scope: scope, timeout: timeout)
        } catch {
            environment.logger.error(
                "Could not store a loaded value",
                metadata: ["key": "\(key.redacted)", "feature": "\(feature)", "error": "\(error)"])
        }
    }

    func endFlight(_ flightKey: String, id: Int) {
        if inFlight[flightKey]?.id == id { inFlight[flightKey] = nil }
    }

    /// The counts of one of this manager's stores.
    func counts(ofStore store: String) -> CacheStatistics {
        environment.metrics.metrics(store: store, feature: feature).snapshot()
    }
}
