import APICore
import APICoreGraphQL
import APICoreREST
import CacheKit

/// A bank account as the screens show it. Amounts are in cents.
public struct Account: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// Display name (`Checking`).
    public var name: String
    /// The balance in cents.
    public var balance: Int
    /// ISO 4217 code.
    public var currency: String

    /// Creates an account.
    public init(id: String, name: String, balance: Int, currency: String) {
        self.id = id
        self.name = name
        self.balance = balance
        self.currency = currency
    }
}

/// An account's balance, read from the `Account:<id>` object every other query of it shares.
public struct AccountBalance: Codable, Sendable, Hashable {
    /// The account.
    public var accountId: String
    /// The balance in cents.
    public var amount: Int
    /// ISO 4217 code.
    public var currency: String

    /// Creates a balance.
    public init(accountId: String, amount: Int, currency: String) {
        self.accountId = accountId
        self.amount = amount
        self.currency = currency
    }
}

/// One transaction; negative amounts leave the account.
public struct Transaction: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// The account it belongs to.
    public var accountId: String
    /// In cents.
    public var amount: Int
    /// What it was.
    public var description: String
    /// When, as the server wrote it (ISO 8601).
    public var date: String

    /// Creates a transaction.
    public init(id: String, accountId: String, amount: Int, description: String, date: String) {
        self.id = id
        self.accountId = accountId
        self.amount = amount
        self.description = description
        self.date = date
    }
}

/// One page of an account's transactions, newest first.
public struct TransactionPage: Codable, Sendable, Hashable {
    /// The transactions on this page.
    public var items: [Transaction]
    /// Whether older ones follow.
    public var hasMore: Bool
    /// The cursor of the next page, when more follow.
    public var nextCursor: String?
}

/// The signed-in user's dashboard.
public struct Dashboard: Codable, Sendable, Hashable {
    /// The user's id.
    public var id: String
    /// The sum of every account's balance, in cents, as the server computed it (refetched in the
    /// background after a payment; the accounts' own balances change at once).
    public var totalBalance: Int
    /// The user's accounts.
    public var accounts: [Account]
    /// The latest transactions over every account.
    public var recentTransactions: [Transaction]
}

/// The signed-in user.
public struct UserProfile: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// Display name.
    public var name: String
    /// E-mail address.
    public var email: String
}

/// A value and where it came from.
public struct Loaded<Value: Sendable>: Sendable {
    /// The value.
    public var value: Value
    /// `ResponseSource/cache` (no request) or `ResponseSource/network`.
    public var source: ResponseSource
    /// How old it is, and the label a view shows beside it ("Offline · last updated 5 min ago").
    public var status: DataStatus

    /// Whether it is cached data older than its timeout (stale, or served because the server could
    /// not be reached).
    public var isStale: Bool { status.freshness.isStale }
}

extension Loaded: Equatable where Value: Equatable {}

/// The result of a funds check, made against the server's balance.
public struct FundsCheck: Sendable, Hashable {
    /// The account.
    public var accountId: String
    /// Its balance now, in cents.
    public var available: Int
    /// What the transfer needs, in cents.
    public var requested: Int

    /// Whether the balance covers the transfer.
    public var isSufficient: Bool { available >= requested }
}

/// A payment the server accepted. Its account's balance is already updated in the normalized store
/// (every screen reading `Account:<id>` sees it), and the critical refetches have finished.
public struct PaymentReceipt: Sendable {
    /// The transaction it created.
    public var transaction: Transaction
    /// The account's balance after the payment, in cents.
    public var newBalance: Int
    /// The critical refetches (balance, recent transactions), finished before the receipt.
    public var critical: [RefetchReport]
    /// The background refetches (dashboard, all transactions), still running; await it to see them.
    public var background: Task<[RefetchReport], Never>?
}
