import Foundation
import GraphQL
import OrderedCollections

/// The bank's data, as the schema asks for it: the reference backend answers from SQLite, APICore's
/// test server from memory. Every call is for the signed-in `caller`.
public protocol BankData: Sendable {
    /// The caller's profile, `nil` when there is none.
    func user(id: String) throws -> BankUserObject?
    /// The caller's accounts, by id.
    func accounts(userId: String) throws -> [BankAccountObject]
    /// The account with this id and its owner, whoever it is; `nil` when there is none.
    func account(id: String) throws -> (account: BankAccountObject, ownerId: String)?
    /// The transaction with this id, for checking a cursor.
    func transaction(id: String) throws -> BankTransactionObject?
    /// An account's transactions, newest first, after the transaction `after` (exclusive).
    func transactions(accountId: String, after: String?, limit: Int) throws -> (items: [BankTransactionObject], hasMore: Bool)
    /// The newest transactions of these accounts.
    func recentTransactions(accountIds: [String], limit: Int) throws -> [BankTransactionObject]
    /// Debits the account and records the transaction, atomically, and once per `key`: a payment sent again
    /// with its key is answered with the first one's transaction (and the account as it is now), nothing
    /// debited; a key that came with another payment is ``BankPaymentOutcome/keyReused``.
    func pay(accountId: String, amount: Int, description: String, key: BankPaymentKey?) throws -> BankPaymentOutcome
}

/// The bank's GraphQL schema, one definition for the reference backend and APICore's tests. Every object
/// has an `id` and a `__typename`; another user's objects are refused with `FORBIDDEN`.
///
/// ```graphql
/// type Query {
///   me: User!
///   accounts: [Account!]!
///   account(id: ID!): Account
///   balance(accountId: ID!): AccountBalance
///   dashboard: Dashboard!
///   broken: String          # always fails with BROKEN: for clients' error-path tests
/// }
/// type User { id: ID! name: String! email: String! }
/// type Account { id: ID! name: String! balance: Int! currency: String!
///                recentTransactions(count: Int = 5): [Transaction!]!
///                transactions(first: Int = 20, after: String): TransactionPage! }
/// type AccountBalance { id: ID! accountId: ID! amount: Int! currency: String! }
/// type Transaction { id: ID! accountId: ID! amount: Int! description: String! date: String! }
/// type TransactionPage { items: [Transaction!]! hasMore: Boolean! nextCursor: String }
/// type Dashboard { id: ID! totalBalance: Int! accounts: [Account!]! recentTransactions: [Transaction!]! }
/// type Mutation { makePayment(accountId: ID!, amount: Int!, description: String): Payment! }
/// type Payment { id: ID! account: Account! transaction: Transaction! }
/// ```
public enum BankSchema {
    /// The execution context: who is asking.
    public struct Caller: Sendable {
        /// The signed-in user.
        public var userId: String
        /// The request's `Idempotency-Key`, if it sent one: a mutation applies once per key.
        public var idempotencyKey: String?

        /// Creates a caller.
        public init(userId: String, idempotencyKey: String? = nil) {
            self.userId = userId
            self.idempotencyKey = idempotencyKey
        }
    }

    /// The error code of a resolver reaching another user's data (a server answers 403).
    public static let forbiddenCode = "FORBIDDEN"

    /// Runs `query` for `userId` against `schema`; a mutation applies once per `idempotencyKey`.
    public static func execute(
        _ query: String, schema: GraphQLSchema, variables: [String: Map], operationName: String?, userId: String,
        idempotencyKey: String? = nil
    ) async throws -> GraphQLResult {
        try await graphql(
            schema: schema, request: query, context: Caller(userId: userId, idempotencyKey: idempotencyKey),
            variableValues: variables, operationName: operationName)
    }

    private static func caller(_ context: any Sendable) throws -> String {
        guard let caller = context as? Caller else { throw GraphQLError(message: "not signed in") }
        return caller.userId
    }

    private static func error(_ message: String, _ code: String, _ info: GraphQLResolveInfo) -> GraphQLError {
        GraphQLError(message: message, path: info.path, extensions: ["code": .string(code)])
    }

    /// The schema over `data`.
    // swiftlint:disable:next function_body_length
    public static func make(_ data: any BankData) throws -> GraphQLSchema {
        let user = try GraphQLObjectType(
            name: "User",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "email": GraphQLField(type: GraphQLNonNull(GraphQLString)),
            ])
        let transaction = try GraphQLObjectType(
            name: "Transaction",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "accountId": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "amount": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                "description": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "date": GraphQLField(type: GraphQLNonNull(GraphQLString)),
            ])
        let transactionPage = try GraphQLObjectType(
            name: "TransactionPage",
            fields: [
                "items": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(transaction)))),
                "hasMore": GraphQLField(type: GraphQLNonNull(GraphQLBoolean)),
                "nextCursor": GraphQLField(type: GraphQLString),
            ])
        let account = try GraphQLObjectType(
            name: "Account",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "balance": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                "currency": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "recentTransactions": GraphQLField(
                    type: GraphQLNonNull(GraphQLList(GraphQLNonNull(transaction))),
                    args: ["count": GraphQLArgument(type: GraphQLInt, defaultValue: 5)]
                ) { source, args, _, _ in
                    guard let account = source as? BankAccountObject else { return [BankTransactionObject]() }
                    return try data.transactions(accountId: account.id, after: nil, limit: max(0, min(args["count"].int ?? 5, 100))).items
                },
                "transactions": GraphQLField(
                    type: GraphQLNonNull(transactionPage),
                    args: ["first": GraphQLArgument(type: GraphQLInt, defaultValue: 20), "after": GraphQLArgument(type: GraphQLString)]
                ) { source, args, _, info in
                    guard let account = source as? BankAccountObject else { return BankTransactionPage(items: [], hasMore: false) }
                    let first = args["first"].int ?? 20
                    guard (1...100).contains(first) else { throw error("first must be from 1 to 100", "INVALID_LIMIT", info) }
                    var after: String?
                    if let cursor = args["after"].string {
                        guard let decoded = Data(base64Encoded: cursor), let id = String(data: decoded, encoding: .utf8),
                            try data.transaction(id: id)?.accountId == account.id
                        else {
                            throw error("Pagination cursor is invalid or expired.", "INVALID_CURSOR", info)
                        }
                        after = id
                    }
                    let page = try data.transactions(accountId: account.id, after: after, limit: first)
                    return BankTransactionPage(
                        items: page.items, hasMore: page.hasMore,
                        nextCursor: page.hasMore ? page.items.last.map { Data($0.id.utf8).base64EncodedString() } : nil)
                },
            ])
        let balance = try GraphQLObjectType(
            name: "AccountBalance",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "accountId": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "amount": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                "currency": GraphQLField(type: GraphQLNonNull(GraphQLString)),
            ])
        let dashboard = try GraphQLObjectType(
            name: "Dashboard",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "totalBalance": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                "accounts": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(account)))),
                "recentTransactions": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(transaction)))) { source, _, _, _ in
                    guard let dashboard = source as? BankDashboard else { return [BankTransactionObject]() }
                    return try data.recentTransactions(accountIds: dashboard.accounts.map(\.id), limit: 5)
                },
            ])
        let payment = try GraphQLObjectType(
            name: "Payment",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "account": GraphQLField(type: GraphQLNonNull(account)),
                "transaction": GraphQLField(type: GraphQLNonNull(transaction)),
            ])
        /// The account if the caller owns it; FORBIDDEN otherwise; nil when there is none.
        @Sendable func owned(_ id: String, _ context: any Sendable, _ info: GraphQLResolveInfo) throws -> BankAccountObject? {
            guard let found = try data.account(id: id) else { return nil }
            guard found.ownerId == (try caller(context)) else {
                throw error("This account belongs to another user.", forbiddenCode, info)
            }
            return found.account
        }
        let query = try GraphQLObjectType(
            name: "Query",
            fields: [
                "me": GraphQLField(type: GraphQLNonNull(user)) { _, _, context, info in
                    guard let found = try data.user(id: try caller(context)) else { throw error("no such user", "UNAUTHORIZED", info) }
                    return found
                },
                "accounts": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(account)))) { _, _, context, _ in
                    try data.accounts(userId: try caller(context))
                },
                "account": GraphQLField(type: account, args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID))]) {
                    _, args, context, info in
                    try owned(args["id"].string ?? "", context, info)
                },
                "balance": GraphQLField(type: balance, args: ["accountId": GraphQLArgument(type: GraphQLNonNull(GraphQLID))]) {
                    _, args, context, info in
                    try owned(args["accountId"].string ?? "", context, info).map {
                        BankBalance(id: $0.id, accountId: $0.id, amount: $0.balance, currency: $0.currency)
                    }
                },
                "dashboard": GraphQLField(type: GraphQLNonNull(dashboard)) { _, _, context, _ in
                    let userId = try caller(context)
                    let accounts = try data.accounts(userId: userId)
                    return BankDashboard(id: userId, totalBalance: accounts.reduce(0) { $0 + $1.balance }, accounts: accounts)
                },
                "broken": GraphQLField(type: GraphQLString) { _, _, _, info in
                    throw error("broken on purpose", "BROKEN", info)
                },
            ])
        let mutation = try GraphQLObjectType(
            name: "Mutation",
            fields: [
                "makePayment": GraphQLField(
                    type: GraphQLNonNull(payment),
                    args: [
                        "accountId": GraphQLArgument(type: GraphQLNonNull(GraphQLID)),
                        "amount": GraphQLArgument(type: GraphQLNonNull(GraphQLInt)),
                        "description": GraphQLArgument(type: GraphQLString),
                    ]
                ) { _, args, context, info in
                    let id = args["accountId"].string ?? ""
                    let amount = args["amount"].int ?? 0
                    guard amount > 0 else { throw error("amount must be positive", "INVALID_AMOUNT", info) }
                    guard try owned(id, context, info) != nil else { throw error("no account \(id)", "UNKNOWN_ACCOUNT", info) }
                    let description = args["description"].string ?? "Payment"
                    let key = (context as? Caller)?.idempotencyKey.map {
                        BankPaymentKey(key: $0, accountId: id, amount: amount, description: description)
                    }
                    switch try data.pay(accountId: id, amount: amount, description: description, key: key) {
                    case .paid(let account, let transaction):
                        return BankPayment(id: transaction.id, account: account, transaction: transaction)
                    case .insufficientFunds:
                        throw error("insufficient funds", "INSUFFICIENT_FUNDS", info)
                    case .keyReused:
                        throw error("this Idempotency-Key came with another payment", "IDEMPOTENCY_KEY_REUSED", info)
                    }
                }
            ])
        return try GraphQLSchema(query: query, mutation: mutation)
    }
}
