import APICore
import APICoreGraphQL
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Logging

/// The bank's queries against ``BankServer``.
struct BalanceQuery: GraphQLQuery {
    static let document = "query AccountBalance($id: ID!) { account(id: $id) { id balance } }"
    static let feature = "accounts"
    static let cacheTimeout = CacheTimeout.seconds(30)
    var id: String
    var variables: [String: JSONValue] { ["id": .string(id)] }
}

struct AccountDetailsQuery: GraphQLQuery {
    static let document = """
        query AccountDetails($id: ID!) { account(id: $id) { ...Details } }
        fragment Details on Account { id name balance recentTransactions { id amount } }
        """
    static let feature = "accounts"
    var id: String
    var variables: [String: JSONValue] { ["id": .string(id)] }
}

struct DashboardQuery: GraphQLQuery {
    static let document = "query Dashboard { dashboard { totalBalance accounts { id name balance } } }"
    static let feature = "accounts"
}

struct ProfileQuery: GraphQLQuery {
    static let document = "query Profile { me { id name } }"
    static let feature = "profile"
    static let cacheTimeout = CacheTimeout.seconds(900)
}

/// Has no timeout of its own: the kit's default applies.
struct AccountsQuery: GraphQLQuery {
    static let document = "query Accounts { accounts { id name } }"
    static let feature = "accounts"
}

struct BrokenQuery: GraphQLQuery {
    static let document = "query Broken { me { id } broken }"
}

struct PaymentMutation: GraphQLMutation {
    static let document = """
        mutation MakePayment($accountId: ID!, $amount: Int!) {
          makePayment(accountId: $accountId, amount: $amount) { account { id balance } transaction { id amount } }
        }
        """
    var accountId: String
    var amount: Int
    var variables: [String: JSONValue] { ["accountId": .string(accountId), "amount": .int(amount)] }
}

/// The bank's kit: keys for its types (accounts tagged with their id), a default timeout, and the
/// refetch rules a test asks for.
struct BankKit: FeatureKit {
    struct Keys: CacheKeyProvider {
        let typenames: Set<String> = ["Account", "Transaction", "User"]
        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            guard let id = object["id"]?.stringValue else { return nil }
            return NormalizedCacheKey("\(typename):\(id)", accountId: typename == "Account" ? id : nil)
        }
    }

    let name = "bank"
    var rules: [MutationRefetchRule] = []

    func register(in registry: KitRegistry) throws(ContainerError) {
        try registry.addCacheKeyProvider(Keys())
        registry.setDefaultTimeout(.seconds(120), forFeature: "accounts")
        for rule in rules { registry.addRefetchRule(rule) }
    }
}

/// A GraphQL client wired to a bank: a manual clock, the bank kit in a container, a unified manager.
struct GraphQLFixture {
    let clock = ManualClock()
    let environment: CacheEnvironment
    let unified: UnifiedCacheManager
    let container: DependencyContainer
    let client: GraphQLClient
    let tokens = StaticTokenProvider(Credentials(accessToken: "token-a", userId: "user-a"))

    init(
        endpoint: URL, transport: any HTTPTransport = URLSessionTransport(), rules: [MutationRefetchRule] = [],
        store: any NormalizedRecordStore = InMemoryRecordStore(), logger: Logger? = nil
    ) throws {
        let timeouts = CacheTimeoutPolicy()
        environment = CacheEnvironment(clock: clock, timeouts: timeouts, logger: logger ?? Logger(label: "test"))
        unified = UnifiedCacheManager(timeouts: timeouts)
        container = DependencyContainer(cacheManager: unified)
        try container.install([BankKit(rules: rules)])
        client = GraphQLClient(
            configuration: .init(
                endpoint: endpoint, transport: transport, environment: environment, tokenProvider: tokens,
                container: container, store: store, retry: .none, requestTimeout: TestDeadline.request))
        unified.register(client)
    }

    /// The normalized store's counts for a feature.
    func counts(feature: String = "accounts") -> CacheStatistics {
        environment.metrics.metrics(store: "normalized", feature: feature).snapshot()
    }
}

extension GraphQLResult {
    /// `account.balance`, for the bank's account queries.
    var balance: Int? {
        guard case .object(let account) = data["account"], case .int(let balance) = account["balance"] else { return nil }
        return balance
    }
}
