import CacheKit

/// A request's own caching declaration (REQ ARC-4). Without one, a GET is
/// still cached when its response's headers allow it (RFC 9111, as a private cache).
///
/// ```swift
/// Cacheable(key: "catalog.page", timeout: .seconds(300))                    // memory only
/// Cacheable(key: "profile", timeout: .seconds(900), isUplifted: true)       // memory and disk
/// Cacheable(key: "balance", scope: .user(userId, account: "123"))            // cleared with account 123
/// ```
public struct Cacheable: Sendable, Hashable {
    /// A logical name for the entry (`cardsExperienceV3.page_1`); `clearCache(forQuery:)` with this
    /// name removes it. Entries are still stored under their full URL, query included.
    public var key: String
    /// How long the response stays fresh; `nil` lets the response's headers decide.
    public var timeout: CacheTimeout?
    /// Uplifted entries are also written to disk and survive a relaunch; others live in memory only.
    /// Both are cleared at logout.
    public var isUplifted: Bool
    /// Whom the entry belongs to; `nil` means the signed-in user (or shared when nobody is).
    public var scope: CacheScope?

    /// Creates a declaration.
    public init(key: String, timeout: CacheTimeout? = nil, isUplifted: Bool = false, scope: CacheScope? = nil) {
        self.key = key
        self.timeout = timeout
        self.isUplifted = isUplifted
        self.scope = scope
    }
}
