/// What a mutation makes stale, as the kit that owns it declares (seed 001, "Mutation Handling
/// Strategies"). The integration binary never hard-codes these.
public struct MutationRefetchRule: Sendable, Hashable {
    /// How the stale queries are fetched again.
    public enum Strategy: Sendable, Hashable {
        /// Strategy 1: refetch these queries from the network, all awaited.
        case refetch([String])
        /// Strategy 2: `critical` queries are refetched network-only and awaited in parallel;
        /// `background` ones run cache-then-network afterwards, not awaited.
        case criticalAndBackground(critical: [String], background: [String])
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
