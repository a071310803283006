/// Whom a cached entry belongs to: the user, optionally one of the user's accounts, and free-form tags.
///
/// Scope is what makes clearing exact and keeps users apart: `clearCache(forAccountId: "100")` removes
/// entries whose ``accountId`` is exactly `"100"` (never `"1002"`), and a store never returns an entry
/// whose ``userId`` differs from the requester's. An entry with no user (``shared``) holds data that is
/// the same for everyone, such as a public catalog; it is still removed by `clearAllCaches()`.
public struct CacheScope: Sendable, Hashable, Codable {
    /// The user the entry belongs to, or `nil` for data shared by every user.
    public var userId: String?
    /// The account the entry belongs to, where a kit says so.
    public var accountId: String?
    /// Free-form tags, matched exactly by ``CacheScopeFilter/tag(_:)``.
    public var tags: Set<String>

    /// Creates a scope.
    public init(userId: String? = nil, accountId: String? = nil, tags: Set<String> = []) {
        self.userId = userId
        self.accountId = accountId
        self.tags = tags
    }

    /// Data that belongs to no user in particular.
    public static let shared = CacheScope()

    /// Data of one user, optionally of one of their accounts.
    public static func user(_ userId: String, account accountId: String? = nil, tags: Set<String> = []) -> CacheScope {
        CacheScope(userId: userId, accountId: accountId, tags: tags)
    }

    /// Whether a requester may read this entry: shared entries are visible to everyone, a user's
    /// entries only to that user.
    @inlinable
    public func isVisible(to requester: String?) -> Bool {
        userId == nil || userId == requester
    }
}

/// Selects entries by scope, exactly: no prefix or substring matching anywhere.
public enum CacheScopeFilter: Sendable, Hashable {
    /// Entries of this user.
    case user(String)
    /// Entries of this account.
    case account(String)
    /// Entries carrying this tag.
    case tag(String)

    /// Whether an entry with `scope` is selected.
    public func matches(_ scope: CacheScope) -> Bool {
        switch self {
        case .user(let id): scope.userId == id
        case .account(let id): scope.accountId == id
        case .tag(let tag): scope.tags.contains(tag)
        }
    }
}
