import Foundation
import GRDB

/// One applied change to a user's favorites, in the order the server applied it: what the offline
/// checks count (a replayed change must appear once).
public struct FavoriteChange: Sendable, Hashable, Codable {
    /// The funnel.
    public var slug: String
    /// `add` or `remove`.
    public var action: String
    /// The request's idempotency key, if it had one.
    public var idempotencyKey: String?
}

/// What a favorites change answered: kept under its idempotency key and answered again, unchanged,
/// for a repeat of the key.
public struct StoredAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The JSON body.
    public var body: Data
    /// Whether this answer is a repeat of an earlier one (nothing was applied).
    public var replayed: Bool
}

extension BackendDatabase {
    static func createFavorites(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE favorite (userId TEXT NOT NULL REFERENCES user(id), slug TEXT NOT NULL,
                                       PRIMARY KEY (userId, slug));
                CREATE TABLE favorite_change (seq INTEGER PRIMARY KEY AUTOINCREMENT, userId TEXT NOT NULL,
                                              slug TEXT NOT NULL, action TEXT NOT NULL, idempotencyKey TEXT);
                CREATE TABLE idempotent_answer (userId TEXT NOT NULL, key TEXT NOT NULL, status INTEGER NOT NULL,
                                                body BLOB NOT NULL, PRIMARY KEY (userId, key));
                """)
    }

    /// Adds or removes a favorite for a user, exactly once per idempotency key: in one transaction,
    /// a key seen before returns its stored answer and applies nothing; a new key applies the
    /// change, logs it, and stores the answer under the key. `answer` builds the body from the
    /// favorites after the change (`nil` for an unknown slug: a 404, stored too).
    public func changeFavorite(
        userId: String, slug: String, add: Bool, idempotencyKey: String?, fingerprint: String?,
        answer: @Sendable (_ known: Bool, _ slugs: [String]) throws -> (status: Int, body: Data)
    )
        throws -> StoredAnswer
    {
        try queue.write { db in
            if let idempotencyKey,
                let row = try Row.fetchOne(
                    db, sql: "SELECT status, body, fingerprint FROM idempotent_answer WHERE userId = ? AND key = ?",
                    arguments: [userId, idempotencyKey])
            {
                guard Self.sameRequest(row["fingerprint"], fingerprint) else {
                    return StoredAnswer(status: 422, body: IdempotencyFingerprint<BackendContext>.reused(), replayed: false)
                }
                return StoredAnswer(status: row["status"], body: row["body"], replayed: true)
            }
            let known = try Funnel.filter(Column("slug") == slug).fetchCount(db) > 0
            if known {
                if add {
                    try db.execute(sql: "INSERT OR IGNORE INTO favorite (userId, slug) VALUES (?, ?)", arguments: [userId, slug])
                } else {
                    try db.execute(sql: "DELETE FROM favorite WHERE userId = ? AND slug = ?", arguments: [userId, slug])
                }
                try db.execute(
                    sql: "INSERT INTO favorite_change (userId, slug, action, idempotencyKey) VALUES (?, ?, ?, ?)",
                    arguments: [userId, slug, add ? "add" : "remove", idempotencyKey])
            }
            let (status, body) = try answer(known, try Self.favorites(db, userId: userId))
            if let idempotencyKey {
                try db.execute(
                    sql: "INSERT INTO idempotent_answer (userId, key, status, body, fingerprint) VALUES (?, ?, ?, ?, ?)",
                    arguments: [userId, idempotencyKey, status, body, fingerprint])
            }
            return StoredAnswer(status: status, body: body, replayed: false)
        }
    }

    /// Whether a key's stored request (`stored`, `nil` for an answer kept before fingerprints existed) is
    /// the one sent now.
    static func sameRequest(_ stored: String?, _ current: String?) -> Bool {
        stored == nil || stored == current
    }

    /// A user's favorite slugs, sorted.
    public func favorites(userId: String) throws -> [String] {
        try queue.read { db in try Self.favorites(db, userId: userId) }
    }

    /// Every change the server applied to a user's favorites, in order.
    public func favoriteChanges(userId: String) throws -> [FavoriteChange] {
        try queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT slug, action, idempotencyKey FROM favorite_change WHERE userId = ? ORDER BY seq",
                arguments: [userId]
            ).map {
                FavoriteChange(slug: $0["slug"], action: $0["action"], idempotencyKey: $0["idempotencyKey"])
            }
        }
    }

    private static func favorites(_ db: Database, userId: String) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT slug FROM favorite WHERE userId = ? ORDER BY slug", arguments: [userId])
    }
}
