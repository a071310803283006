import Foundation
import GRDB
import GraphQL
import OrderedCollections

/// The bank's GraphQL schema over the backend's SQLite data: the signed-in user's profile, accounts,
/// balances, account details, transactions (cursor paginated), dashboard, and `makePayment`. Every
/// object has an `id` and a `__typename`; objects of another user are refused with `FORBIDDEN`.
///
/// ```graphql
/// type Query {
///   me: User!
///   accounts: [Account!]!
///   account(id: ID!): Account
///   balance(accountId: ID!): AccountBalance
///   dashboard: Dashboard!
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
struct BankGraphQL: Sendable {
    let database: BackendDatabase
    let schema: GraphQLSchema

    /// The resolvers' context: who is asking.
    struct Caller: Sendable {
        var userId: String
    }

    /// Raised by a resolver reaching another user's data; the route answers 403.
    static let forbiddenCode = "FORBIDDEN"

    struct Balance: Codable, Sendable {
        var id: String
        var accountId: String
        var amount: Int
        var currency: String
    }
    struct TransactionJSON: Codable, Sendable {
        var id: String
        var accountId: String
        var amount: Int
        var description: String
        var date: String
    }
    struct TransactionPage: Codable, Sendable {
        var items: [TransactionJSON]
        var hasMore: Bool
        var nextCursor: String?
    }
    struct Dashboard: Codable, Sendable {
        var id: String
        var totalBalance: Int
        var accounts: [BankAccount]
    }
    struct Payment: Codable, Sendable {
        var id: String
        var account: BankAccount
        var transaction: TransactionJSON
    }
    struct Profile: Codable, Sendable {
        var id: String
        var name: String
        var email: String
    }

    init(database: BackendDatabase) throws {
        self.database = database
        schema = try Self.makeSchema(database)
    }

    /// Runs a request for `userId`.
    func execute(_ query: String, variables: [String: Map], operationName: String?, userId: String) async throws -> GraphQLResult {
        try await graphql(
            schema: schema, request: query, context: Caller(userId: userId), variableValues: variables,
            operationName: operationName)
    }

    private static func caller(_ context: any Sendable) throws -> String {
        guard let caller = context as? Caller else { throw GraphQLError(message: "not signed in") }
        return caller.userId
    }

    private static func error(_ message: String, _ code: String, _ info: GraphQLResolveInfo) -> GraphQLError {
        GraphQLError(message: message, path: info.path, extensions: ["code": .string(code)])
    }

    private static func json(_ transaction: BankTransaction) -> TransactionJSON {
        TransactionJSON(
            id: transaction.id, accountId: transaction.accountId, amount: transaction.amount,
            description: transaction.description, date: ISO8601.string(transaction.date))
    }

    // swiftlint:disable:next function_body_length
    private static func makeSchema(_ database: BackendDatabase) throws -> GraphQLSchema {
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
                    guard let account = source as? BankAccount else { return [TransactionJSON]() }
                    return try database.transactions(accountId: account.id, after: nil, limit: max(0, min(args["count"].int ?? 5, 100)))
                        .items.map(json)
                },
                "transactions": GraphQLField(
                    type: GraphQLNonNull(transactionPage),
                    args: ["first": GraphQLArgument(type: GraphQLInt, defaultValue: 20), "after": GraphQLArgument(type: GraphQLString)]
                ) { source, args, _, info in
                    guard let account = source as? BankAccount else { return TransactionPage(items: [], hasMore: false, nextCursor: nil) }
                    let first = args["first"].int ?? 20
                    guard (1...100).contains(first) else { throw error("first must be from 1 to 100", "INVALID_LIMIT", info) }
                    var after: String?
                    if let cursor = args["after"].string {
                        guard let data = Data(base64Encoded: cursor), let id = String(data: data, encoding: .utf8),
                            try database.transaction(id: id)?.accountId == account.id
                        else {
                            throw error("Pagination cursor is invalid or expired.", "INVALID_CURSOR", info)
                        }
                        after = id
                    }
                    let page = try database.transactions(accountId: account.id, after: after, limit: first)
                    return TransactionPage(
                        items: page.items.map(json), hasMore: page.hasMore,
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
                    guard let dashboard = source as? Dashboard else { return [TransactionJSON]() }
                    return try database.recentTransactions(accountIds: dashboard.accounts.map(\.id), limit: 5).map(json)
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
        @Sendable func owned(_ id: String, _ context: any Sendable, _ info: GraphQLResolveInfo) throws -> BankAccount? {
            guard let account = try database.account(id: id) else { return nil }
            guard account.userId == (try caller(context)) else {
                throw error("This account belongs to another user.", forbiddenCode, info)
            }
            return account
        }

        let query = try GraphQLObjectType(
            name: "Query",
            fields: [
                "me": GraphQLField(type: GraphQLNonNull(user)) { _, _, context, info in
                    guard let found = try database.user(id: try caller(context)) else { throw error("no such user", "UNAUTHORIZED", info) }
                    return Profile(id: found.id, name: found.name, email: found.email)
                },
                "accounts": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(account)))) { _, _, context, _ in
                    try database.accounts(userId: try caller(context))
                },
                "account": GraphQLField(type: account, args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID))]) {
                    _, args, context, info in
                    try owned(args["id"].string ?? "", context, info)
                },
                "balance": GraphQLField(type: balance, args: ["accountId": GraphQLArgument(type: GraphQLNonNull(GraphQLID))]) {
                    _, args, context, info in
                    try owned(args["accountId"].string ?? "", context, info).map {
                        Balance(id: $0.id, accountId: $0.id, amount: $0.balance, currency: $0.currency)
                    }
                },
                "dashboard": GraphQLField(type: GraphQLNonNull(dashboard)) { _, _, context, _ in
                    let userId = try caller(context)
                    let accounts = try database.accounts(userId: userId)
                    return Dashboard(id: userId, totalBalance: accounts.reduce(0) { $0 + $1.balance }, accounts: accounts)
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
                    switch try database.pay(accountId: id, amount: amount, description: args["description"].string ?? "Payment") {
                    case .paid(let account, let transaction):
                        return Payment(id: transaction.id, account: account, transaction: json(transaction))
                    case .insufficientFunds:
                        throw error("insufficient funds", "INSUFFICIENT_FUNDS", info)
                    }
                }
            ])
        return try GraphQLSchema(query: query, mutation: mutation)
    }
}

extension BackendDatabase {
    /// The user's accounts, by id.
    public func accounts(userId: String) throws -> [BankAccount] {
        try queue.read { db in try BankAccount.filter(Column("userId") == userId).order(Column("id")).fetchAll(db) }
    }

    /// The account with this id.
    public func account(id: String) throws -> BankAccount? {
        try queue.read { db in try BankAccount.fetchOne(db, key: id) }
    }

    func transaction(id: String) throws -> BankTransaction? {
        try queue.read { db in try BankTransaction.fetchOne(db, key: id) }
    }

    /// An account's transactions, newest first, after the transaction `after` (exclusive).
    func transactions(accountId: String, after: String?, limit: Int) throws -> (items: [BankTransaction], hasMore: Bool) {
        try queue.read { db in
            var sql = #"SELECT * FROM "transaction" WHERE accountId = ?"#
            var arguments: StatementArguments = [accountId]
            if let after, let anchor = try BankTransaction.fetchOne(db, key: after) {
                sql += " AND (date < ? OR (date = ? AND id < ?))"
                arguments += [anchor.date, anchor.date, anchor.id]
            }
            sql += " ORDER BY date DESC, id DESC LIMIT ?"
            arguments += [limit + 1]
            let rows = try BankTransaction.fetchAll(db, sql: sql, arguments: arguments)
            return (Array(rows.prefix(limit)), rows.count > limit)
        }
    }

    func recentTransactions(accountIds: [String], limit: Int) throws -> [BankTransaction] {
        try queue.read { db in
            try BankTransaction.filter(accountIds.contains(Column("accountId")))
                .order(Column("date").desc, Column("id").desc).limit(limit).fetchAll(db)
        }
    }

    enum PaymentOutcome {
        case paid(BankAccount, BankTransaction)
        case insufficientFunds
    }

    /// Debits the account and records the transaction, atomically.
    func pay(accountId: String, amount: Int, description: String) throws -> PaymentOutcome {
        try queue.write { db in
            guard var account = try BankAccount.fetchOne(db, key: accountId), account.balance >= amount else {
                return .insufficientFunds
            }
            account.balance -= amount
            try account.update(db)
            let count = try BankTransaction.fetchCount(db)
            let transaction = BankTransaction(
                id: "t\(count + 1)-\(UUID().uuidString.prefix(8))", accountId: accountId,
                amount: -amount, description: description, date: now())
            try transaction.insert(db)
            return .paid(account, transaction)
        }
    }
}
