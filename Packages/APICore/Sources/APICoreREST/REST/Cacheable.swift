import APICore
import CacheKit

/// A request's own caching declaration (REQ ARC-4). Without one, a GET is
/// still cached when its response's headers allow it (RFC 9111, as a private cache).
///
/// ```swift
/// Cacheable(key: "catalog.page", timeout: .seconds(300))                    // memory only
/// Cacheable(key: "profile", timeout: .seconds(900), isUplifted: true)       // memory and disk
/// Cacheable(key: "balance", accountId: "123")       // the signed-in user's, cleared with account 123
/// Cacheable(key: "rates", tags: ["fx"])               // the signed-in user's, tagged
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
    /// Whom the entry belongs to, in full; `nil` (the usual case) means the signed-in user (or shared
    /// when nobody is), with ``accountId`` and ``tags`` added. A kit rarely knows the user id: it sets
    /// those two, and the client fills in the user.
    public var scope: CacheScope?
    /// The account the entry belongs to, added to the signed-in user's scope: `clearCache(forAccountId:)`
    /// removes it.
    public var accountId: String?
    /// Tags added to the signed-in user's scope (`CacheScopeFilter.tag`).
    public var tags: Set<String>

    /// Creates a declaration.
    public init(
        key: String, timeout: CacheTimeout? = nil, isUplifted: Bool = false, scope: CacheScope? = nil,
        accountId: String? = nil, tags: Set<String> = []
    ) {
        self.key = key
        self.timeout = timeout
        self.isUplifted = isUplifted
        self.scope = scope
        self.accountId = accountId
        self.tags = tags
    }

    /// The scope an entry is stored with when `userId` is signed in.
    func scope(forUser userId: String?) -> CacheScope {
        scope ?? CacheScope(userId: userId, accountId: accountId, tags: tags)
    }
}
