import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// The REST client's private HTTP cache: responses in a ``MemoryStore``, uplifted ones also in a
/// ``DiskStore``, keyed by method and full URL, scoped to the user who fetched them. It is the
/// client's ``CacheClearingParticipant`` (category `.rest`).
final class HTTPCache: CacheClearingParticipant {
    let participantName: String
    let category = CacheCategory.rest
    let memory: MemoryStore<StoredResponse>
    let disk: DiskStore
    private let environment: CacheEnvironment
    /// What keeps a fetch from storing (``Barriers``).
    private let barriers = Locked(Barriers())
    /// Held by a store from its check of the barriers to its last write, and by a clearing or an invalidation from
    /// its barrier to its last removal: a response let through before a clearing never lands after it.
    private let writes = Locked(())
    /// The features whose requests went through this cache: its statistics count only theirs, so
    /// two REST clients sharing an environment (the app's and a kit's) do not report each other's.
    private let features = Locked<Set<String>>([])

    /// Tag of entries whose expiry comes from their headers rather than a declared timeout.
    static let headerFreshnessTag = "http:header-freshness"

    init(
        name: String, environment: CacheEnvironment, memoryLimits: MemoryStore<StoredResponse>.Limits,
        diskByteLimit: Int
    ) {
        participantName = name
        self.environment = environment
        memory = MemoryStore(
            limits: memoryLimits, clock: environment.clock,
            metrics: environment.metrics.metrics(store: "memory", feature: name)
        ) {
            $0.cost
        }
        disk = DiskStore(
            configuration: .init(
                directory: environment.cachesDirectory.appendingPathComponent(name, isDirectory: true),
                byteLimit: diskByteLimit),
            clock: environment.clock, metrics: environment.metrics.metrics(store: "disk", feature: name),
            logger: environment.logger, changes: environment.storeChanges)
    }

    /// The key of the keyed hashes kept for `Vary` (one per installation, beside the caches).
    var secret: InstallSecret { environment.secret }

    static func key(for url: URL) -> String { key(forURL: url.absoluteString) }

    static func key(forURL urlString: String) -> String { "GET " + urlString }

    /// A sequence number bumped by every clear and invalidation; a fetch reads it when it starts.
    var generation: Int { barriers.withLock { $0.sequence } }

    /// The generation a response may be stored with once the request that brought it has invalidated what it changed
    /// (an unsafe method's own URL, RFC 9111 §4.4): the current one, unless a clear came since `prepared` (read before
    /// the request's credentials), which then keeps the response out.
    func generation(afterOwnInvalidationsSince prepared: Int) -> Int {
        barriers.withLock { $0.cleared <= prepared ? $0.sequence : prepared }
    }

    /// The HTTP-level counters of one feature's requests through this cache.
    func metrics(feature: String) -> CacheMetrics {
        features.withLock { _ = $0.insert(feature) }
        return environment.metrics.metrics(store: "http", feature: feature)
    }

    /// Opens the disk tier's file, if it exists, ahead of the first lookup (``DiskStore/prepare()``).
    func prepare() { disk.prepare() }

    // MARK: Lookup and store

    /// The stored response for `key` that `requester` may see and whose `Vary` matches, fresh or not.
    func lookup(_ key: String, requester: String?, requestFields: HTTPFields) -> (response: StoredResponse, metadata: CacheEntryMetadata)? {
        if let entry = memory.peek(key, requester: requester) {
            if entry.value.matchesVary(requestFields, secret: secret) {
                if entry.metadata.isFresh(at: environment.clock.now()) { _ = memory.get(key, requester: requester) }
                return (entry.value, entry.metadata)
            }
            if let variant = entry.value.otherVariant(for: requestFields, secret: secret) {
                return (variant, Self.metadata(of: variant, in: entry.value, entry.metadata))
            }
        }
        let generation = generation
        guard let entry = disk.peek(key, requester: requester) else { return nil }
        guard let response = StoredResponse(encoded: entry.value) else {
            environment.logger.warning(
                "Dropped an HTTP cache entry that no longer decodes",
                metadata: ["key": "\(RedactedKey(key))"])
            _ = try? disk.remove(key)
            return nil
        }
        let isPrimary = response.matchesVary(requestFields, secret: secret)
        let variant = isPrimary ? nil : response.otherVariant(for: requestFields, secret: secret)
        guard isPrimary || variant != nil else { return nil }
        if entry.metadata.isFresh(at: environment.clock.now()) { disk.recordHit(key) }
        // Kept in memory as a store would be: not when a clear or an invalidation of the key came since the disk's read.
        writes.withLock { _ in
            guard barriers.withLock({ $0.allowsStore(of: key, startedIn: generation) }) else { return }
            memory.set(response, forKey: key, metadata: entry.metadata)
        }
        return variant.map { ($0, Self.metadata(of: $0, in: response, entry.metadata)) } ?? (response, entry.metadata)
    }

    /// The metadata of `variant`, one of the responses kept in `entry` (whose metadata is `metadata`):
    /// stored when it was received, and fresh by its own headers, or for the declared timeout from then.
    static func metadata(of variant: StoredResponse, in entry: StoredResponse, _ metadata: CacheEntryMetadata) -> CacheEntryMetadata {
        var adjusted = metadata
        adjusted.storedAt = variant.responseTime
        if metadata.scope.tags.contains(headerFreshnessTag) {
            adjusted.expiresAt = variant.headerExpiry
        } else {
            adjusted.expiresAt = metadata.expiresAt?.addingTimeInterval(variant.responseTime.timeIntervalSince(entry.responseTime))
        }
        return adjusted
    }

    /// Stores a response unless a clear, or an invalidation of this key, happened since `generation` was read: under
    /// ``writes``, so one that comes after the check waits until the response is in, and then removes it.
    func store(
        _ response: StoredResponse, forKey key: String, metadata: CacheEntryMetadata, uplifted: Bool,
        startedIn generation: Int
    ) {
        writes.withLock { _ in
            guard barriers.withLock({ $0.allowsStore(of: key, startedIn: generation) }) else {
                environment.logger.debug(
                    "Response arrived after a clear or an invalidation of its URL; not stored",
                    metadata: ["key": "\(RedactedKey(key))"])
                return
            }
            // Told before the memory tier changes, as the disk store tells again before its own write.
            environment.storeChanges?.storeWillChange()
            defer { environment.storeChanges?.storeDidChange() }
            // The URL's other variants stay beside the new response (the user's own entry only).
            let older =
                memory.peek(key, requester: metadata.scope.userId)?.value
                ?? (uplifted ? disk.peek(key, requester: metadata.scope.userId).flatMap { StoredResponse(encoded: $0.value) } : nil)
            let response = older.map { response.keepingVariants(of: $0) } ?? response
            memory.set(response, forKey: key, metadata: metadata)
            guard uplifted else { return }
            do {
                try disk.set(try response.encoded(), forKey: key, metadata: metadata)
            } catch {
                environment.logger.error(
                    "Could not write an HTTP cache entry to disk",
                    metadata: ["key": "\(RedactedKey(key))", "error": "\(error)"])
            }
        }
    }

    /// The metadata for a response about to be stored: the settings file's override for the
    /// feature wins, then the request's declared timeout, then the response's own headers.
    func metadata(for response: StoredResponse, cacheable: Cacheable?, feature: String, scope: CacheScope) -> CacheEntryMetadata {
        let policy = environment.timeouts
        var scope = scope
        scope.tags.insert("feature:\(feature)")
        if let key = cacheable?.key { scope.tags.insert("key:\(key)") }
        let storedAt = response.responseTime
        if let override = policy.settings.features[feature], override != .default {
            return CacheEntryMetadata(
                storedAt: storedAt, expiresAt: policy.expiry(for: .useDefault, feature: feature, storedAt: storedAt),
                timeout: .useDefault, scope: scope)
        }
        // A request that declares Cacheable without a timeout takes its feature's kit default, if any.
        if let cacheable, let timeout = cacheable.timeout ?? policy.kitDefault(forFeature: feature) {
            return CacheEntryMetadata(
                storedAt: storedAt, expiresAt: policy.expiry(for: timeout, feature: feature, storedAt: storedAt),
                timeout: timeout, scope: scope)
        }
        scope.tags.insert(Self.headerFreshnessTag)
        return CacheEntryMetadata(storedAt: storedAt, expiresAt: response.headerExpiry, timeout: .useDefault, scope: scope)
    }

    /// Removes what an unsafe request changed (RFC 9111 §4.4): this key only; a fetch of it that
    /// started before is not stored, fetches of other keys are untouched.
    func invalidate(_ key: String) {
        writes.withLock { _ in
            barriers.withLock { $0.invalidate(key) }
            environment.storeChanges?.storeWillChange()
            defer { environment.storeChanges?.storeDidChange() }
            memory.remove(key)
            do { try disk.remove(key) } catch {
                environment.logger.error("Could not invalidate an HTTP cache entry on disk", metadata: ["error": "\(error)"])
            }
        }
    }

    // MARK: CacheClearingParticipant

    func clearAll() async throws {
        try clearing {
            memory.removeAll()
            try disk.removeAll()
            // Nothing is left that its hashes matched: the next user starts with a new key.
            try environment.forgetSecret()
        }
    }

    func clear(forAccountId accountId: String) async throws {
        try clearing {
            memory.removeAll(matching: .account(accountId))
            try disk.removeAll(matching: .account(accountId))
        }
    }

    /// Removes the entries declared with `Cacheable(key:)` equal to `key`, and the entry stored for
    /// `key` taken as a URL.
    func clear(forKey key: String) async throws {
        try clearing {
            for storeKey in [key, "GET \(key)"] {
                memory.remove(storeKey)
                try disk.remove(storeKey)
            }
            memory.removeAll(matching: .tag("key:\(key)"))
            try disk.removeAll(matching: .tag("key:\(key)"))
        }
    }

    /// Raises the barrier that keeps out every fetch started before it, then runs `removals`, with no store beside
    /// them (``writes``).
    private func clearing(_ removals: () throws -> Void) throws {
        try writes.withLock { _ in
            barriers.withLock { $0.clear() }
            try removals()
        }
    }

    func expireAll() async throws {
        let now = environment.clock.now()
        memory.restamp { _ in now }
        try disk.restamp { _ in now }
    }

    func applyTimeouts() async throws {
        let policy = environment.timeouts
        let expiry: @Sendable (CacheEntryMetadata) -> Date? = { metadata in
            let feature = metadata.scope.tags.first { $0.hasPrefix("feature:") }.map { String($0.dropFirst(8)) }
            let override = feature.flatMap { policy.settings.features[$0] }
            if metadata.scope.tags.contains(Self.headerFreshnessTag), override == nil || override == .default {
                return metadata.expiresAt
            }
            return policy.expiry(for: metadata.timeout, feature: feature, storedAt: metadata.storedAt)
        }
        memory.restamp(expiry)
        try disk.restamp(expiry)
    }

    /// Three rows: the HTTP-level counts (hits, revalidations, bytes saved, over every feature) with
    /// the total usage, then the memory and disk stores' own counts and usage.
    /// Trims memory and disk together to at most `bytes` (the app-wide budget).
    func trim(toBytes bytes: Int) throws {
        try trimStores(memory: memory, disk: disk, toBytes: bytes)
    }

    func statistics() async throws -> [CacheStoreStatistics] {
        let served = features.withLock { $0 }
        let http = environment.metrics.snapshot().filter { $0.store == "http" && served.contains($0.feature) }
            .reduce(CacheStatistics(store: "http", feature: participantName), +)
        let memoryUsage = memory.usage()
        let diskUsage = try disk.usage()
        func row(_ counts: CacheStatistics, _ usage: CacheStoreUsage) -> CacheStoreStatistics {
            CacheStoreStatistics(participant: participantName, category: category, counts: counts, usage: usage)
        }
        return [
            row(http, CacheStoreUsage(count: memoryUsage.count + diskUsage.count, bytes: memoryUsage.bytes + diskUsage.bytes)),
            row(environment.metrics.metrics(store: "memory", feature: participantName).snapshot(), memoryUsage),
            row(environment.metrics.metrics(store: "disk", feature: participantName).snapshot(), diskUsage),
        ]
    }

    func exportEntries() async throws -> [CacheExportEntry] {
        memory.describeEntries().map { CacheExportEntry(participant: participantName, store: "memory", entry: $0) }
            + (try disk.describeEntries().map { CacheExportEntry(participant: participantName, store: "disk", entry: $0) })
    }
}
