import Foundation
import Logging

/// A feature's cache of `Codable` values: a ``MemoryStore`` of decoded values in front of an optional
/// ``DiskStore`` of encoded ones, with timeouts, scopes, single-flight loading and
/// stale-while-revalidate.
///
/// ```swift
/// let profiles = try CacheManager<Profile>(feature: "profile", environment: environment,
///                                          persistence: .disk(), defaultTimeout: .seconds(900))
/// let profile = try await profiles.value(forKey: "profile:\(userId)", scope: .user(userId)) {
///     try await api.fetchProfile()
/// }
/// ```
///
/// Reads are user-checked: an entry stored for one user is never returned to another. Every clear
/// also invalidates loads that are still in flight, so a response that arrives after logout is
/// returned to its caller but never written back into the cache.
public actor CacheManager<Value: Codable & Sendable> {
    /// Where a manager keeps its values.
    public enum Persistence: Sendable, Hashable {
        /// Memory only: gone when the process ends (REQ ARC-6, for financial data).
        case memoryOnly
        /// Memory in front of a SQLite file under `cachesDirectory/<feature>/`.
        case disk(byteLimit: Int = 50 * 1024 * 1024)
    }

    /// The feature name: the `feature` dimension of metrics, the settings file's key, the folder name.
    public nonisolated let feature: String
    /// Which family of caches this is, for selective clearing.
    public nonisolated let category: CacheCategory
    /// The memory store.
    public nonisolated let memory: MemoryStore<Value>
    /// The disk store, when persistent.
    public nonisolated let disk: DiskStore?
    private let environment: CacheEnvironment
    private let defaultTimeout: CacheTimeout
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private var inFlight: [String: (id: Int, task: Task<Value, any Error>)] = [:]
    private var nextFlightID = 0
    /// Bumped by every clear; a load that started under an older generation does not store its result.
    private var generation = 0

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - feature: a folder-safe name (letters, digits, `-`, `_`, `.`).
    ///   - category: `.rest`, `.graphQL` or `.data`, for `clearRESTCache()` and `clearGraphQLCache()`.
    ///   - environment: the app's shared clock, timeouts, metrics, logger and caches directory.
    ///   - memoryLimits: the memory store's count and byte limits.
    ///   - persistence: memory only, or memory over disk.
    ///   - defaultTimeout: the kit's default timeout, used when neither the call nor the type declares one.
    /// - Throws: ``CacheError/invalidFeatureName(_:)``.
    public init(
        feature: String,
        category: CacheCategory = .data,
        environment: CacheEnvironment,
        memoryLimits: MemoryStore<Value>.Limits = .init(),
        persistence: Persistence = .memoryOnly,
        defaultTimeout: CacheTimeout = .useDefault
    ) throws(CacheError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        guard !feature.isEmpty, !feature.hasPrefix("."), feature.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .invalidFeatureName(feature)
        }
        self.feature = feature
        self.category = category
        self.environment = environment
        self.defaultTimeout = defaultTimeout
        memory = MemoryStore(
            limits: memoryLimits, clock: environment.clock,
            metrics: environment.metrics.metrics(store: "memory", feature: feature))
        switch persistence {
        case .memoryOnly:
            disk = nil
        case .disk(let byteLimit):
            disk = DiskStore(
                configuration: .init(
                    directory: environment.cachesDirectory.appendingPathComponent(feature, isDirectory: true),
                    byteLimit: byteLimit),
                clock: environment.clock,
                metrics: environment.metrics.metrics(store: "disk", feature: feature),
                logger: environment.logger)
        }
    }

    // MARK: Get, set, remove

    /// The fresh value for `key`, from memory, else from disk (then kept in memory), if `requester`
    /// may see it. A disk entry that no longer decodes is dropped, logged and reported as a miss.
    public func value(forKey key: String, requester: String?) -> Value? {
        freshEntry(forKey: key, requester: requester)?.value
    }

    /// The fresh entry for `key` with its metadata: one lookup, for ``value(forKey:requester:)`` and
    /// the freshness ``read(forKey:scope:timeout:refresh:stale:loader:)`` reports.
    private func freshEntry(forKey key: String, requester: String?) -> CacheEntry<Value>? {
        if let entry = memory.get(key, requester: requester) { return entry }
        guard let disk, let entry = disk.get(key, requester: requester) else { return nil }
        do {
            let value = try decoder.decode(Value.self, from: entry.value)
            memory.set(value, forKey: key, metadata: entry.metadata, cost: entry.value.count)
            return CacheEntry(value: value, metadata: entry.metadata)
        } catch {
            environment.logger.warning("Dropped a cache entry that no longer decodes",
                                       metadata: ["key": "\(key.redacted)", "feature": "\(feature)", "error": "\(error)"])
            _ = try? disk.remove(key)
            return nil
        }
    }

    /// The value for `key`, fresh or past its timeout, with its ``Freshness``, if `requester` may see
    /// it: the last known data, for a screen that shows what it has while offline. Does not count as a
    /// hit or a miss.
    public func cached(forKey key: String, requester: String?) -> CacheUpdate<Value>? {
        let now = environment.clock.now()
        func update(_ value: Value, _ metadata: CacheEntryMetadata) -> CacheUpdate<Value> {
            CacheUpdate(value: value, source: .cache,
                        freshness: Freshness(metadata.isFresh(at: now) ? .fresh : .stale, storedAt: metadata.storedAt, now: now))
        }
        if let entry = memory.peek(key, requester: requester) { return update(entry.value, entry.metadata) }
        guard let disk, let entry = disk.peek(key, requester: requester),
              let value = try? decoder.decode(Value.self, from: entry.value) else { return nil }
        memory.set(value, forKey: key, metadata: entry.metadata, cost: entry.value.count)
        return update(value, entry.metadata)
    }

    /// Stores `value` under `key`.
    ///
    /// - Parameters:
    ///   - scope: whom the value belongs to; readers of another user never see it.
    ///   - timeout: the call site's timeout; `.useDefault` defers to the type
    ///     (``CacheTimeoutProviding``), then the manager's default, then the global default.
    /// - Throws: ``CacheError/encoding(key:reason:)``, or the disk store's error.
    public func set(_ value: Value, forKey key: String, scope: CacheScope = .shared,
                    timeout: CacheTimeout = .useDefault) throws {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw CacheError.encoding(key: key.redacted, reason: "\(error)")
        }
        let declared = CacheTimeout.declared(
            callSite: timeout, type: (Value.self as? any CacheTimeoutProviding.Type)?.cacheTimeout,
            kit: defaultTimeout != .useDefault ? defaultTimeout : environment.timeouts.kitDefault(forFeature: feature))
        let now = environment.clock.now()
        let metadata = CacheEntryMetadata(
            storedAt: now, expiresAt: environment.timeouts.expiry(for: declared, feature: feature, storedAt: now),
            timeout: declared, scope: scope)
        try disk?.set(data, forKey: key, metadata: metadata)
        memory.set(value, forKey: key, metadata: metadata, cost: data.count)
    }

    /// Removes the value for `key` from memory and disk.
    public func remove(forKey key: String) throws {
        generation += 1
        memory.remove(key)
        try disk?.remove(key)
    }

    /// Removes every value the filter selects from memory and disk; returns how many entries went.
    @discardableResult
    public func removeAll(matching filter: CacheScopeFilter) throws -> Int {
        generation += 1
        return memory.removeAll(matching: filter) + (try disk?.removeAll(matching: filter) ?? 0)
    }

    /// Removes every value; the disk store's files are deleted.
    public func removeAll() throws {
        generation += 1
        memory.removeAll()
        try disk?.removeAll()
    }

    // MARK: Loading

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
            return CacheUpdate(value: fresh.value, source: .cache,
                               freshness: Freshness(.fresh, storedAt: fresh.metadata.storedAt, now: environment.clock.now()))
        }
        let last = stale == .never ? nil : cached(forKey: key, requester: requester)
        if stale == .whileRevalidating, refresh == .useCache, let last {
            Task {
                do {
                    _ = try await self.load(key, scope: scope, timeout: timeout, loader: loader)
                } catch {
                    self.environment.logger.debug("Background refresh failed; the stale value stays",
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
            environment.logger.info("Served the last known value: the load failed",
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
                    continuation.yield(CacheUpdate(value: fresh, source: .loader,
                                                   freshness: .fetched(at: self.environment.clock.now())))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func load(
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

    private func storeLoaded(_ value: Value, forKey key: String, scope: CacheScope, timeout: CacheTimeout,
                             startedIn: Int) {
        guard startedIn == generation else {
            environment.logger.debug("Load finished after a clear; not stored", metadata: ["key": "\(key.redacted)"])
            return
        }
        do {
            try set(value, forKey: key, scope: scope, timeout: timeout)
        } catch {
            environment.logger.error("Could not store a loaded value",
                                     metadata: ["key": "\(key.redacted)", "feature": "\(feature)", "error": "\(error)"])
        }
    }

    private func endFlight(_ flightKey: String, id: Int) {
        if inFlight[flightKey]?.id == id { inFlight[flightKey] = nil }
    }

    /// The counts of one of this manager's stores.
    func counts(ofStore store: String) -> CacheStatistics {
        environment.metrics.metrics(store: store, feature: feature).snapshot()
    }

    // MARK: Timeouts

    /// Recomputes every entry's expiry under the current settings (after a settings reload).
    public func applyTimeouts() throws {
        let policy = environment.timeouts
        let feature = self.feature
        let expiry: @Sendable (CacheEntryMetadata) -> Date? = {
            policy.expiry(for: $0.timeout, feature: feature, storedAt: $0.storedAt)
        }
        memory.restamp(expiry)
        try disk?.restamp(expiry)
    }

    /// Makes every entry stale now, so each is loaded again on next use (REQ ARC-5's "clear timestamps").
    public func expireAll() throws {
        let now = environment.clock.now()
        memory.restamp { _ in now }
        try disk?.restamp { _ in now }
    }
}
