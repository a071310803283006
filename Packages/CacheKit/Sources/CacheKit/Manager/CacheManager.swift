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
///     try await backend.profile()
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
    let environment: CacheEnvironment
    private let defaultTimeout: CacheTimeout
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    var inFlight: [String: (id: Int, task: Task<Value, any Error>)] = [:]
    var nextFlightID = 0
    /// Bumped by every clear; a load that started under an older generation does not store its result.
    var generation = 0

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
        guard isPlainFileName(feature) else {
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
                logger: environment.logger, changes: environment.storeChanges)
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
    func freshEntry(forKey key: String, requester: String?) -> CacheEntry<Value>? {
        if let entry = memory.get(key, requester: requester) { return entry }
        guard let disk, let entry = disk.get(key, requester: requester) else { return nil }
        do {
            let value = try decoder.decode(Value.self, from: entry.value)
            memory.set(value, forKey: key, metadata: entry.metadata, cost: entry.value.count)
            return CacheEntry(value: value, metadata: entry.metadata)
        } catch {
            environment.logger.warning(
                "Dropped a cache entry that no longer decodes",
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
            CacheUpdate(
                value: value, source: .cache,
                freshness: Freshness(metadata.isFresh(at: now) ? .fresh : .stale, storedAt: metadata.storedAt, now: now))
        }
        if let entry = memory.peek(key, requester: requester) { return update(entry.value, entry.metadata) }
        guard let disk, let entry = disk.peek(key, requester: requester),
            let value = try? decoder.decode(Value.self, from: entry.value)
        else { return nil }
        memory.set(value, forKey: key, metadata: entry.metadata, cost: entry.value.count)
        return update(value, entry.metadata)
    }

    /// Stores `value` under `key`.
    ///
    /// - Parameters:
    ///   - value: what is stored, encoded once for the disk.
    ///   - key: the entry's key within this manager.
    ///   - scope: whom the value belongs to; readers of another user never see it.
    ///   - timeout: the call site's timeout; `.useDefault` defers to the type
    ///     (``CacheTimeoutProviding``), then the manager's default, then the global default.
    /// - Throws: ``CacheError/encoding(key:reason:)``, or the disk store's error.
    public func set(
        _ value: Value, forKey key: String, scope: CacheScope = .shared,
        timeout: CacheTimeout = .useDefault
    ) throws {
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
