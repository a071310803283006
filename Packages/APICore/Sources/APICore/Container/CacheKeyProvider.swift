/// How a kit keys its GraphQL objects in the normalized store (REQ ARC-2, "Normalized Cache with
/// Custom Keys"): `Account:123` instead of the path of the query that fetched it.
///
/// A provider claims the typenames it keys; two kits claiming one typename is an error at
/// registration, so which provider answers for an object never depends on installation order.
public protocol CacheKeyProvider: Sendable {
    /// The GraphQL typenames this provider keys (`Account`, `Transaction`).
    var typenames: Set<String> { get }

    /// The key for an object of one of ``typenames``, or `nil` to leave it under its path.
    /// - Parameters:
    ///   - object: the object's fields as received, `__typename` included.
    ///   - typename: the object's `__typename`.
    func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey?
}

/// A normalized object's key, and the account it belongs to when a kit says so (so clearing one
/// account is exact).
public struct NormalizedCacheKey: Sendable, Hashable {
    /// The record's key, such as `Account:123`.
    public var key: String
    /// The account that owns the record, if any.
    public var accountId: String?

    /// Creates a key.
    public init(_ key: String, accountId: String? = nil) {
        self.key = key
        self.accountId = accountId
    }
}
