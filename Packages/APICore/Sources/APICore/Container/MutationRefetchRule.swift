/// What a mutation makes stale, as the kit that owns it declares (REQ ARC-3, "Mutation Handling
/// Strategies"). The integration binary never hard-codes these.
///
/// ```swift
/// MutationRefetchRule(mutation: "MakePayment", strategy: .criticalAndBackground(
///     critical: [RefetchQuery("AccountBalance", binding: ["accountId": "accountId"])],
///     background: ["Dashboard", RefetchQuery("AllTransactions", binding: ["accountId": "accountId"], cursor: "after")]))
/// ```
public struct MutationRefetchRule: Sendable, Hashable {
    /// How the stale queries are fetched again.
    public enum Strategy: Sendable, Hashable {
        /// Strategy 1: refetch these queries from the network, all awaited.
        case refetch([RefetchQuery])
        /// Strategy 2: `critical` queries are refetched network-only and awaited in parallel before
        /// the mutation returns. `background` ones run afterwards, one after another and not awaited,
        /// cache-then-network: what the cache holds (the mutation's result already written into it) is
        /// what screens show meanwhile, and is reported in `RefetchReport/cached`; then the network's
        /// answer replaces it.
        case criticalAndBackground(critical: [RefetchQuery], background: [RefetchQuery])
    }

    /// The mutation's operation name (`MakePayment`).
    public var mutation: String
    /// The queries to refetch, by operation name, and how.
    public var strategy: Strategy

    /// Creates a rule.
    public init(mutation: String, strategy: Strategy) {
        self.mutation = mutation
        self.strategy = strategy
    }
}

/// Which of the queries fetched or watched since the last clear a rule refetches: those with an
/// operation name, optionally only those whose variables match the mutation's, and for a paginated
/// list, its first page only.
public struct RefetchQuery: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The query's operation name (`AccountBalance`).
    public var name: String
    /// Query variable → mutation variable: only the queries whose variables equal the mutation's
    /// under this mapping are refetched (`["accountId": "accountId"]`: the paid account's balance,
    /// not every account's). Empty: every query of that name.
    public var binding: [String: String]
    /// For a cursor-paginated list, the variable that holds the cursor (`after`): the list is
    /// refetched from its first page (the cursor set to null), once per other variables, and its
    /// later pages are removed from the cache, since their cursors may no longer hold.
    public var cursor: String?

    /// Creates a target.
    /// - Parameters:
    ///   - name: the query's operation name.
    ///   - binding: query variable → mutation variable that must be equal; empty for all.
    ///   - cursor: the cursor variable of a paginated list.
    public init(_ name: String, binding: [String: String] = [:], cursor: String? = nil) {
        self.name = name
        self.binding = binding
        self.cursor = cursor
    }

    /// Every query of this name: `"Dashboard"`.
    public init(stringLiteral name: String) {
        self.init(name)
    }
}
