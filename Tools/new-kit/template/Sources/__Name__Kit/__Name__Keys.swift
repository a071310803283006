import APICore
import APICoreGraphQL

/// How __Name__Kit's GraphQL objects are keyed in the normalized store: `__Name__Item:<id>`, so every
/// query that reads an item shares one copy of it. A typename belongs to one kit: installing a second
/// kit whose provider claims `__Name__Item` fails with `ContainerError/duplicateTypename(_:kits:)`.
public struct __Name__Keys: CacheKeyProvider {
    /// The `__typename` the server gives an item.
    public static let itemTypename = "__Name__Item"
    /// The typenames this provider keys.
    public let typenames: Set<String> = [Self.itemTypename]

    /// Creates the provider.
    public init() {}

    /// `__Name__Item:<id>`; `nil` (keyed by its path) for an item without an id.
    public func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
        object["id"]?.stringValue.map { NormalizedCacheKey("\(typename):\($0)") }
    }
}

/// One item by id, over GraphQL: `{ __name__Item(id:) { id title } }`.
public struct __Name__ItemQuery: GraphQLQuery {
    public static let document = "query __Name__Item($id: ID!) { __name__Item(id: $id) { id title } }"
    public static let feature = __Name__Client.feature
    /// The item's id.
    public var id: String
    public var variables: [String: JSONValue] { ["id": .string(id)] }

    /// Creates the query.
    public init(id: String) { self.id = id }
}
