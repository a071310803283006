import APICore

/// How the bank's objects are keyed in the normalized store (REQ ARC-2, "Normalized Cache with Custom
/// Keys"): `Account:<id>`, `Transaction:<id>`, `AccountBalance:<accountId>` and `User:<id>`. Objects
/// an account owns are tagged with its id, so clearing an account removes exactly them.
public struct AccountsCacheKeys: CacheKeyProvider {
    public let typenames: Set<String> = ["Account", "Transaction", "AccountBalance", "User"]

    /// Creates the provider.
    public init() {}

    public func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
        switch typename {
        case "Account":
            object["id"]?.stringValue.map { NormalizedCacheKey("Account:\($0)", accountId: $0) }
        case "Transaction":
            object["id"]?.stringValue.map { NormalizedCacheKey("Transaction:\($0)", accountId: object["accountId"]?.stringValue) }
        case "AccountBalance":
            (object["accountId"] ?? object["id"])?.stringValue.map { NormalizedCacheKey("AccountBalance:\($0)", accountId: $0) }
        case "User":
            object["id"]?.stringValue.map { NormalizedCacheKey("User:\($0)") }
        default:
            nil
        }
    }
}
