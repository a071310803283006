import APICore
import CacheKit

// The accounts part of the story, declared the way a feature kit declares it (AccountsKit replaces
// these when it lands): queries with their own timeouts, a key provider, and the payment's refetch rule.

/// One account's balance and name (30 s, as the seed's balance query).
struct DemoAccountQuery: GraphQLQuery {
    static let document = "query Account($id: ID!) { account(id: $id) { id name balance currency } }"
    static let feature = "accounts"
    static let cacheTimeout = CacheTimeout.seconds(30)
    var id: String
    var variables: [String: JSONValue] { ["id": .string(id)] }
}

/// The dashboard: total and accounts.
struct DemoDashboardQuery: GraphQLQuery {
    static let document = "query Dashboard { dashboard { id totalBalance accounts { id name balance } } }"
    static let feature = "accounts"
}

/// The payment.
struct DemoPayment: GraphQLMutation {
    static let document = """
        mutation MakePayment($accountId: ID!, $amount: Int!) {
          makePayment(accountId: $accountId, amount: $amount) { id account { id balance } transaction { id amount } }
        }
        """
    var accountId: String
    var amount: Int
    var variables: [String: JSONValue] { ["accountId": .string(accountId), "amount": .int(amount)] }
}

/// Keys for the bank's objects; accounts are tagged with their id, so clearing one is exact.
struct DemoKeys: CacheKeyProvider {
    let typenames: Set<String> = ["Account", "Transaction", "Dashboard", "User", "Payment"]

    func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
        guard let id = object["id"]?.stringValue else { return nil }
        return NormalizedCacheKey("\(typename):\(id)", accountId: typename == "Account" ? id : nil)
    }
}

/// Registers the keys, the accounts timeout and the payment's refetch rule (strategy 2).
struct DemoAccountsKit: FeatureKit {
    let name = "accounts-demo"

    func register(in registry: KitRegistry) throws(ContainerError) {
        try registry.addCacheKeyProvider(DemoKeys())
        registry.setDefaultTimeout(.seconds(300), forFeature: "accounts")
        registry.addRefetchRule(MutationRefetchRule(
            mutation: "MakePayment", strategy: .criticalAndBackground(critical: ["Account"], background: ["Dashboard"])))
    }
}
