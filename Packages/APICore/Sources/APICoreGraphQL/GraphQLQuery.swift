import APICore
import CacheKit

/// A query type: its document, parsed once for the type (not per call), and its variables.
/// A cacheable query (REQ ARC-4): a type may declare its own ``cacheTimeout``.
///
/// ```swift
/// struct AccountBalanceQuery: GraphQLQuery {
///     static let document = "query AccountBalance($id: ID!) { account(id: $id) { id balance } }"
///     static let feature = "accounts"
///     static let cacheTimeout = CacheTimeout.seconds(30)
///     var id: String
///     var variables: [String: JSONValue] { ["id": .string(id)] }
/// }
/// ```
public protocol GraphQLQuery: Sendable {
    /// The query, with any fragments it uses.
    static var document: String { get }
    /// The feature it belongs to: picks the kit's default timeout, the settings file's override and
    /// the metrics' label. `graphql` unless declared.
    static var feature: String { get }
    /// The type's own timeout, between the call site's and the kit's. `CacheTimeout/useDefault`
    /// unless declared.
    static var cacheTimeout: CacheTimeout { get }
    /// The variables of this call.
    var variables: [String: JSONValue] { get }
}

/// A mutation type: its document, parsed once for the type, and its variables. The kit that owns it
/// declares what it makes stale with a `MutationRefetchRule` under the operation's name.
public protocol GraphQLMutation: Sendable {
    /// The mutation, with any fragments it uses.
    static var document: String { get }
    /// The feature it belongs to, for metrics. `graphql` unless declared.
    static var feature: String { get }
    /// The variables of this call.
    var variables: [String: JSONValue] { get }
}

extension GraphQLQuery {
    /// `graphql`.
    public static var feature: String { "graphql" }
    /// ``CacheTimeout/useDefault``: the kit's or the global default applies.
    public static var cacheTimeout: CacheTimeout { .useDefault }
    /// No variables.
    public var variables: [String: JSONValue] { [:] }

    /// The parsed operation, checked to be a query, with this call's variables validated.
    /// - Throws: ``APIError/invalidOperation(_:)``.
    func operation() throws(APIError) -> GraphQLOperation {
        try ParsedOperations.shared.operation(for: Self.self, document: Self.document, kind: .query, variables: variables)
    }
}

extension GraphQLQuery {
    /// This query with `variable` set to null: a paginated list's first page, for refetch rules.
    func restarted(withNull variable: String) -> any GraphQLQuery {
        var variables = self.variables
        variables[variable] = .null
        return FirstPage<Self>(variables: variables)
    }
}

/// A query type's first page: its document, feature and timeout, with the cursor variable null.
struct FirstPage<Q: GraphQLQuery>: GraphQLQuery {
    static var document: String { Q.document }
    static var feature: String { Q.feature }
    static var cacheTimeout: CacheTimeout { Q.cacheTimeout }
    var variables: [String: JSONValue]
}

extension GraphQLMutation {
    /// `graphql`.
    public static var feature: String { "graphql" }
    /// No variables.
    public var variables: [String: JSONValue] { [:] }

    /// The parsed operation, checked to be a mutation, with this call's variables validated.
    func operation() throws(APIError) -> GraphQLOperation {
        try ParsedOperations.shared.operation(for: Self.self, document: Self.document, kind: .mutation, variables: variables)
    }
}

/// Each operation type's parsed document (or its parse error), computed on first use.
final class ParsedOperations: Sendable {
    static let shared = ParsedOperations()
    private let parsed = Locked<[ObjectIdentifier: Result<GraphQLOperation, GraphQLOperationError>]>([:])
    private let parses = Locked<[ObjectIdentifier: Int]>([:])

    /// How many times the document of `type` was parsed (1 after any number of calls; 0 before).
    func parseCount(for type: Any.Type) -> Int {
        parses.withLock { $0[ObjectIdentifier(type)] ?? 0 }
    }

    func operation(
        for type: Any.Type, document: String, kind: GraphQLOperation.Kind,
        variables: [String: JSONValue]
    ) throws(APIError) -> GraphQLOperation {
        let id = ObjectIdentifier(type)
        let result =
            parsed.withLock { $0[id] }
            ?? {
                parses.withLock { $0[id, default: 0] += 1 }
                var result = Result { () throws(GraphQLOperationError) in try GraphQLOperation(document) }
                if case .success(let operation) = result, operation.kind != kind {
                    result = .failure(.unsupported("\(type) must hold a \(kind.rawValue), not a \(operation.kind.rawValue)"))
                }
                parsed.withLock { $0[id] = result }
                return result
            }()
        switch result {
        case .success(let operation):
            do throws(GraphQLOperationError) {
                try operation.validate(variables: variables)
            } catch {
                throw .invalidOperation(error)
            }
            return operation
        case .failure(let error):
            throw .invalidOperation(error)
        }
    }
}
