/// The bank's objects as the schema serves them (field names are the GraphQL fields).

/// An account.
public struct BankAccountObject: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    /// In cents.
    public var balance: Int
    /// ISO 4217 code.
    public var currency: String

    public init(id: String, name: String, balance: Int, currency: String) {
        self.id = id
        self.name = name
        self.balance = balance
        self.currency = currency
    }
}

/// A movement on an account.
public struct BankTransactionObject: Codable, Sendable, Hashable {
    public var id: String
    public var accountId: String
    /// In cents; negative for a payment.
    public var amount: Int
    public var description: String
    /// ISO 8601.
    public var date: String

    public init(id: String, accountId: String, amount: Int, description: String, date: String) {
        self.id = id
        self.accountId = accountId
        self.amount = amount
        self.description = description
        self.date = date
    }
}

/// The signed-in user.
public struct BankUserObject: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var email: String

    public init(id: String, name: String, email: String) {
        self.id = id
        self.name = name
        self.email = email
    }
}

/// What a payment did, or why it did not.
public enum BankPaymentOutcome: Sendable, Hashable {
    /// The account after the debit, and the transaction recorded.
    case paid(BankAccountObject, BankTransactionObject)
    /// The balance is below the amount.
    case insufficientFunds
    /// The idempotency key came with another payment before (`IDEMPOTENCY_KEY_REUSED`); nothing changed.
    case keyReused
}

/// A payment's idempotency key and what it was sent with: the same key with the same payment is the same
/// payment, answered with its first transaction.
public struct BankPaymentKey: Sendable, Hashable {
    /// The client's `Idempotency-Key`.
    public var key: String
    /// The account, amount and description it came with.
    public var fingerprint: String

    /// A key for a payment of `amount` from `accountId` with `description`.
    public init(key: String, accountId: String, amount: Int, description: String) {
        self.key = key
        fingerprint = "\(accountId)\u{1F}\(amount)\u{1F}\(description)"
    }
}

struct BankBalance: Codable, Sendable {
    var id: String
    var accountId: String
    var amount: Int
    var currency: String
}

struct BankTransactionPage: Codable, Sendable {
    var items: [BankTransactionObject]
    var hasMore: Bool
    var nextCursor: String?
}

struct BankDashboard: Codable, Sendable {
    var id: String
    var totalBalance: Int
    var accounts: [BankAccountObject]
}

struct BankPayment: Codable, Sendable {
    var id: String
    var account: BankAccountObject
    var transaction: BankTransactionObject
}
