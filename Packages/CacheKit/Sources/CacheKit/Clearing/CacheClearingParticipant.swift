import Foundation

/// Which family a cache belongs to, for ``UnifiedCacheManager/clearRESTCache()`` and
/// ``UnifiedCacheManager/clearGraphQLCache()``.
public enum CacheCategory: String, Sendable, Hashable, Codable {
    /// Responses of REST requests.
    case rest
    /// GraphQL normalized records and query results.
    case graphQL
    /// Any other cached data (a kit's own values).
    case data
}

/// A cache that ``UnifiedCacheManager`` clears, inspects and re-times. Kits register theirs; nothing
/// is hard-coded.
///
/// Only ``clearAll()``, ``clear(forAccountId:)`` and ``clear(forKey:)`` are required; the rest have
/// defaults that do nothing, for caches with no timestamps or nothing to report.
public protocol CacheClearingParticipant: Sendable {
    /// A name for reports, unique among the participants (a feature name such as `catalog`).
    var participantName: String { get }
    /// The family it belongs to.
    var category: CacheCategory { get }
    /// Removes everything, in memory and on disk (logout, session expiry).
    func clearAll() async throws
    /// Removes what belongs to exactly this account (account switch).
    func clear(forAccountId accountId: String) async throws
    /// Removes the entry under this key, if any (error recovery).
    func clear(forKey key: String) async throws
    /// Makes every entry stale so it is loaded again on next use ("clear timestamps").
    func expireAll() async throws
    /// Recomputes expiry dates after the timeout settings changed.
    func applyTimeouts() async throws
    /// Counts and sizes, per store.
    func statistics() async throws -> [CacheStoreStatistics]
    /// What is cached, without values, for a debugging export.
    func exportEntries() async throws -> [CacheExportEntry]
    /// Evicts least recently used entries until all its stores together hold at most `bytes`
    /// (``UnifiedCacheManager/enforceBudget()``).
    func trim(toBytes bytes: Int) async throws
    /// Whether the app-wide ``CacheBudget`` counts and trims it; `false` for a cache that keeps a limit
    /// of its own (``ImageCache``). `true` by default.
    var isInAppBudget: Bool { get }
}

extension CacheClearingParticipant {
    /// Does nothing: the participant keeps no timestamps.
    public func expireAll() async throws {}
    /// Does nothing: the participant keeps no timeouts.
    public func applyTimeouts() async throws {}
    /// Reports nothing.
    public func statistics() async throws -> [CacheStoreStatistics] { [] }
    /// Exports nothing.
    public func exportEntries() async throws -> [CacheExportEntry] { [] }
    /// Does nothing: the participant holds nothing the budget counts.
    public func trim(toBytes bytes: Int) async throws {}
    /// `true`: the app-wide budget counts it.
    public var isInAppBudget: Bool { true }
}

/// One store's counts and size, as ``UnifiedCacheManager/statistics()`` reports them.
public struct CacheStoreStatistics: Sendable, Hashable, Codable {
    /// The participant it belongs to.
    public var participant: String
    /// The participant's family.
    public var category: CacheCategory
    /// Hits, misses, expirations, evictions and writes.
    public var counts: CacheStatistics
    /// Entries and bytes held now.
    public var usage: CacheStoreUsage

    /// Creates statistics.
    public init(participant: String, category: CacheCategory, counts: CacheStatistics, usage: CacheStoreUsage) {
        self.participant = participant
        self.category = category
        self.counts = counts
        self.usage = usage
    }
}

/// One cached entry in a debugging export: identifiers are redacted and the value is never included.
public struct CacheExportEntry: Sendable, Hashable, Codable {
    /// The participant that holds it.
    public var participant: String
    /// The store that holds it (`memory`, `disk`).
    public var store: String
    /// The key, redacted (``RedactedKey``).
    public var key: String
    /// The user it belongs to, redacted, or `nil` for shared data.
    public var user: String?
    /// The account it belongs to, redacted.
    public var account: String?
    /// Its size in bytes.
    public var bytes: Int
    /// When it was stored.
    public var storedAt: Date
    /// When it stops being fresh, `nil` for never.
    public var expiresAt: Date?

    /// Builds an export row from a store's description of an entry, redacting every identifier.
    public init(participant: String, store: String, entry: CacheEntryDescription) {
        self.participant = participant
        self.store = store
        key = RedactedKey(entry.key).description
        user = entry.metadata.scope.userId.map { RedactedKey($0).description }
        account = entry.metadata.scope.accountId.map { RedactedKey($0).description }
        bytes = entry.bytes
        storedAt = entry.metadata.storedAt
        expiresAt = entry.metadata.expiresAt
    }
}
