import APICore
import APICoreGraphQL
import CacheKit

// The kit's operations. Each query type declares its feature (the settings file's key) and, where
// the requirements say so, its own timeout; the rest take the kit's default (5 minutes).

/// The settings file's feature names for the kit's data.
public enum AccountsFeature {
    /// Balances (30 s).
    public static let balances = "balances"
    /// Account details and the dashboard (5 min, the kit's default).
    public static let accounts = "accounts"
    /// Transactions (5 min).
    public static let transactions = "transactions"
    /// The user's profile (15 min).
    public static let profile = "profile"
}

/// An account's balance: reads `Account:<id>.balance`, the field every account query shares.
public struct AccountBalanceQuery: GraphQLQuery {
    public static let document = "query AccountBalance($accountId: ID!) { account(id: $accountId) { id balance currency } }"
    public static let feature = AccountsFeature.balances
    public static let cacheTimeout = CacheTimeout.seconds(30)
    /// The account.
    public var accountId: String
    public var variables: [String: JSONValue] { ["accountId": .string(accountId)] }
    /// Creates the query.
    public init(accountId: String) { self.accountId = accountId }
}

/// An account's details.
public struct AccountDetailsQuery: GraphQLQuery {
    public static let document = "query AccountDetails($accountId: ID!) { account(id: $accountId) { id name balance currency } }"
    public static let feature = AccountsFeature.accounts
    /// The account.
    public var accountId: String
    public var variables: [String: JSONValue] { ["accountId": .string(accountId)] }
    /// Creates the query.
    public init(accountId: String) { self.accountId = accountId }
}

/// An account's latest transactions.
public struct RecentTransactionsQuery: GraphQLQuery {
    public static let document = """
        query RecentTransactions($accountId: ID!, $count: Int) {
          account(id: $accountId) { id recentTransactions(count: $count) { id accountId amount description date } }
        }
        """
    public static let feature = AccountsFeature.transactions
    public static let cacheTimeout = CacheTimeout.seconds(300)
    /// The account.
    public var accountId: String
    /// How many.
    public var count: Int
    public var variables: [String: JSONValue] { ["accountId": .string(accountId), "count": .int(count)] }
    /// Creates the query.
    public init(accountId: String, count: Int) {
        self.accountId = accountId
        self.count = count
    }
}

/// One page of an account's full transaction list.
public struct AllTransactionsQuery: GraphQLQuery {
    public static let document = """
        query AllTransactions($accountId: ID!, $first: Int, $after: String) {
          account(id: $accountId) {
            id
            transactions(first: $first, after: $after) { items { id accountId amount description date } hasMore nextCursor }
          }
        }
        """
    public static let feature = AccountsFeature.transactions
    public static let cacheTimeout = CacheTimeout.seconds(300)
    /// The account.
    public var accountId: String
    /// Page size, 1 to 100.
    public var first: Int
    /// The previous page's cursor; `nil` for the first page.
    public var after: String?
    public var variables: [String: JSONValue] {
        ["accountId": .string(accountId), "first": .int(first), "after": after.map(JSONValue.string) ?? .null]
    }
    /// Creates the query.
    public init(accountId: String, first: Int, after: String?) {
        self.accountId = accountId
        self.first = first
        self.after = after
    }
}

/// The dashboard: every account and the latest transactions.
public struct DashboardQuery: GraphQLQuery {
    public static let document = """
        query Dashboard {
          dashboard { id totalBalance accounts { id name balance currency } recentTransactions { id accountId amount description date } }
        }
        """
    public static let feature = AccountsFeature.accounts
    /// Creates the query.
    public init() {}
}

/// The signed-in user's profile.
public struct UserProfileQuery: GraphQLQuery {
    public static let document = "query UserProfile { me { id name email } }"
    public static let feature = AccountsFeature.profile
    public static let cacheTimeout = CacheTimeout.seconds(900)
    /// Creates the query.
    public init() {}
}

/// A payment from an account; its result carries the account's new balance.
public struct MakePaymentMutation: GraphQLMutation {
    public static let document = """
        mutation MakePayment($accountId: ID!, $amount: Int!, $description: String) {
          makePayment(accountId: $accountId, amount: $amount, description: $description) {
            id
            account { id balance currency }
            transaction { id accountId amount description date }
          }
        }
        """
    public static let feature = AccountsFeature.accounts
    /// The account paid from.
    public var accountId: String
    /// In cents, positive.
    public var amount: Int
    /// What it is for.
    public var description: String?
    public var variables: [String: JSONValue] {
        ["accountId": .string(accountId), "amount": .int(amount), "description": description.map(JSONValue.string) ?? .null]
    }
    /// Creates the mutation.
    public init(accountId: String, amount: Int, description: String?) {
        self.accountId = accountId
        self.amount = amount
        self.description = description
    }
}
