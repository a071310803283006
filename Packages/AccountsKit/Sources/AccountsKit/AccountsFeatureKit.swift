import APICore
import APICoreGraphQL
import CacheKit

/// AccountsKit as the composition root installs it: the use cases (``AccountsClient``), the
/// cache-key provider, the payment's refetch rule and the features' default timeouts. The app
/// registers its `GraphQLClient` (built with the same container) under the `app` kit.
///
/// ```swift
/// try container.install([AccountsFeatureKit(), /* other kits */])
/// let graphQL = GraphQLClient(configuration: .init(endpoint: url, tokenProvider: session, container: container))
/// try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
/// try container.verify()
/// ```
public struct AccountsFeatureKit: FeatureKit {
    /// `accounts`.
    public let name = "accounts"

    /// What a payment makes stale (critical, then background refetches): the paid account's balance and recent
    /// transactions are refetched before the payment returns (network-only); the dashboard and the
    /// paid account's full list (from its first page) after, cache-then-network.
    public static let paymentRule = MutationRefetchRule(
        mutation: "MakePayment",
        strategy: .criticalAndBackground(
            critical: [
                RefetchQuery("AccountBalance", binding: ["accountId": "accountId"]),
                RefetchQuery("RecentTransactions", binding: ["accountId": "accountId"]),
            ],
            background: [
                "Dashboard",
                RefetchQuery("AllTransactions", binding: ["accountId": "accountId"], cursor: "after"),
            ]))

    /// Creates the kit.
    public init() {}

    /// Registers the use cases, keys, rule and timeouts.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        registry.require(GraphQLClient.self)
        try registry.register(AccountsClient.self) { resolver in AccountsClient(graphQL: try resolver.resolve(GraphQLClient.self)) }
        try registry.addCacheKeyProvider(AccountsCacheKeys())
        registry.addRefetchRule(Self.paymentRule)
        // A payment is never queued offline: it fails at once with `AccountsError.requiresConnection`.
        registry.declareMutation("MakePayment", .requiresConnection)
        registry.setDefaultTimeout(.seconds(30), forFeature: AccountsFeature.balances)
        registry.setDefaultTimeout(.seconds(300), forFeature: AccountsFeature.accounts)
        registry.setDefaultTimeout(.seconds(300), forFeature: AccountsFeature.transactions)
        registry.setDefaultTimeout(.seconds(900), forFeature: AccountsFeature.profile)
        // A balance older than an hour is labelled; offline data always is.
        registry.setStaleIndicator(.lastUpdated(after: 3_600), forFeature: AccountsFeature.balances)
        registry.setStaleIndicator(.lastUpdated(after: 86_400), forFeature: AccountsFeature.accounts)
    }
}
