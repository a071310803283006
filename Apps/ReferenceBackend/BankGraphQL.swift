import BankSchema
import Foundation
import GRDB
import GraphQL

/// The bank's GraphQL endpoint over the backend's SQLite data: the shared schema (`BankSchema`, the one
/// APICore's tests serve too) answered from ``BackendDatabase``.
struct BankGraphQL: Sendable {
    let schema: GraphQLSchema

    init(database: BackendDatabase) throws {
        schema = try BankSchema.make(SQLiteBank(database: database))
    }

    /// Runs a request for `userId`.
    func execute(
        _ query: String, variables: [String: Map], operationName: String?, userId: String, idempotencyKey: String?
    ) async throws -> GraphQLResult {
        try await BankSchema.execute(
            query, schema: schema, variables: variables, operationName: operationName, userId: userId,
            idempotencyKey: idempotencyKey)
    }
}

/// ``BankData`` over the backend's database.
struct SQLiteBank: BankData {
    let database: BackendDatabase

    func user(id: String) throws -> BankUserObject? {
        try database.user(id: id).map { BankUserObject(id: $0.id, name: $0.name, email: $0.email) }
    }

    func accounts(userId: String) throws -> [BankAccountObject] {
        try database.accounts(userId: userId).map(Self.object)
    }

    func account(id: String) throws -> (account: BankAccountObject, ownerId: String)? {
        try database.account(id: id).map { (Self.object($0), $0.userId) }
    }

    func transaction(id: String) throws -> BankTransactionObject? {
        try database.transaction(id: id).map(Self.object)
    }

    func transactions(accountId: String, after: String?, limit: Int) throws -> (items: [BankTransactionObject], hasMore: Bool) {
        let page = try database.transactions(accountId: accountId, after: after, limit: limit)
        return (page.items.map(Self.object), page.hasMore)
    }

    func recentTransactions(accountIds: [String], limit: Int) throws -> [BankTransactionObject] {
        try database.recentTransactions(accountIds: accountIds, limit: limit).map(Self.object)
    }

    func pay(accountId: String, amount: Int, description: String, key: BankPaymentKey?) throws -> BankPaymentOutcome {
        switch try database.pay(accountId: accountId, amount: amount, description: description, key: key) {
        case .paid(let account, let transaction): .paid(Self.object(account), Self.object(transaction))
        case .insufficientFunds: .insufficientFunds
        case .keyReused: .keyReused
        }
    }

    static func object(_ account: BankAccount) -> BankAccountObject {
        BankAccountObject(id: account.id, name: account.name, balance: account.balance, currency: account.currency)
    }

    static func object(_ transaction: BankTransaction) -> BankTransactionObject {
        BankTransactionObject(
            id: transaction.id, accountId: transaction.accountId, amount: transaction.amount, description: transaction.description,
            date: ISO8601.string(transaction.date))
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
        case keyReused
    }

    /// Debits the account and records the transaction, atomically, once per idempotency key: the key's
    /// payment again gets its first transaction and debits nothing; another payment with the key, `keyReused`.
    func pay(accountId: String, amount: Int, description: String, key: BankPaymentKey?) throws -> PaymentOutcome {
        try queue.write { db in
            if let key,
                let row = try Row.fetchOne(
                    db, sql: "SELECT fingerprint, transactionId FROM payment_key WHERE accountId = ? AND key = ?",
                    arguments: [accountId, key.key])
            {
                guard row["fingerprint"] == key.fingerprint, let account = try BankAccount.fetchOne(db, key: accountId),
                    let transaction = try BankTransaction.fetchOne(db, key: row["transactionId"] as String)
                else { return .keyReused }
                return .paid(account, transaction)
            }
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
            if let key {
                try db.execute(
                    sql: "INSERT INTO payment_key (accountId, key, fingerprint, transactionId) VALUES (?, ?, ?, ?)",
                    arguments: [accountId, key.key, key.fingerprint, transaction.id])
            }
            return .paid(account, transaction)
        }
    }
}
