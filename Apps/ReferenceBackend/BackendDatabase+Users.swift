import Crypto
import Foundation
import GRDB

/// A user of the demo bank.
public struct User: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "user"

    /// Stable identifier (`u1`).
    public var id: String
    /// Sign-in e-mail, lowercased.
    public var email: String
    /// Display name.
    public var name: String
    var salt: String
    var passwordHash: String
}

/// A bank account of a user.
public struct BankAccount: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "account"

    /// Stable identifier (`100`, `1002`: ids that share a prefix, to prove clearing is exact).
    public var id: String
    /// The owner.
    public var userId: String
    /// Display name.
    public var name: String
    /// In cents.
    public var balance: Int
    /// ISO 4217 code.
    public var currency: String
}

/// A movement on an account.
public struct BankTransaction: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "transaction"

    /// Stable identifier.
    public var id: String
    /// The account it belongs to.
    public var accountId: String
    /// In cents; negative for a payment.
    public var amount: Int
    /// What it was.
    public var description: String
    /// When it happened.
    public var date: Date
}

extension BackendDatabase {
    /// The demo users: `alice@example.com` / `Password1`, `bob@example.com` / `Password2`,
    /// `carol@example.com` / `Password3`.
    public static let demoUsers: [(email: String, password: String)] = [
        ("alice@example.com", "Password1"), ("bob@example.com", "Password2"), ("carol@example.com", "Password3"),
    ]

    static func seedUsers(_ db: Database, work: PasswordWork) throws {
        let names = ["Alice", "Bob", "Carol"]
        let accountIds = [["100", "1002"], ["200", "2001"], ["300"]]
        var transactionNumber = 0
        for (index, demo) in demoUsers.enumerated() {
            let (salt, hash) = try PasswordHash.make(demo.password, work: work)
            try User(id: "u\(index + 1)", email: demo.email, name: names[index], salt: salt, passwordHash: hash).insert(db)
            for (position, accountId) in accountIds[index].enumerated() {
                try BankAccount(
                    id: accountId, userId: "u\(index + 1)", name: position == 0 ? "Checking" : "Savings",
                    balance: 100_000 * (position + 1) + 4_200 * (index + 1), currency: "EUR"
                ).insert(db)
                for day in 0..<40 {
                    transactionNumber += 1
                    try BankTransaction(
                        id: "t\(transactionNumber)", accountId: accountId, amount: -((day * 731) % 9_000 + 100),
                        description: ["Groceries", "Rent", "Coffee", "Transport", "Books"][day % 5],
                        date: epoch.addingTimeInterval(Double(day) * 86_400)
                    ).insert(db)
                }
            }
        }
    }

    /// The demo users were stored with one SHA-256 of a predictable salt: store them with scrypt and random
    /// salts (their passwords are the documented demo ones; any other such row can no longer sign in).
    static func rehashDemoPasswords(_ db: Database, work: PasswordWork) throws {
        for demo in demoUsers {
            let (salt, hash) = try PasswordHash.make(demo.password, work: work)
            try db.execute(sql: "UPDATE user SET salt = ?, passwordHash = ? WHERE email = ?", arguments: [salt, hash, demo.email])
        }
    }

    /// The user whose e-mail and password match, or `nil`. The password is checked outside the database
    /// queue, and an unknown e-mail costs the same work as a known one.
    public func authenticate(email: String, password: String) throws -> User? {
        let found = try queue.read { db in try User.filter(Column("email") == email.lowercased()).fetchOne(db) }
        guard let user = found else {
            _ = PasswordHash.verify(password, salt: decoy.salt, against: decoy.hash)
            return nil
        }
        return PasswordHash.verify(password, salt: user.salt, against: user.passwordHash) ? user : nil
    }

    /// The user with this id.
    public func user(id: String) throws -> User? {
        try queue.read { db in try User.fetchOne(db, key: id) }
    }
}
