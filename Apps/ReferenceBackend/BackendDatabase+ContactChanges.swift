import Foundation
import GRDB

/// The changes to an address book beyond a contact's own: imports, circles and their access policies,
/// disputes. Each runs inside ``BackendDatabase/changeContacts(userId:idempotencyKey:fingerprint:_:)``'s transaction.
extension BackendDatabase {
    /// A contact as an import sends it (the device chooses its id, so a resend changes nothing).
    struct ImportedContact: Codable, Sendable {
        var id: String
        var displayName: String
        var phones: [String]
        var emails: [String]
    }

    static func createProfiles(_ db: Database) throws {
        try db.execute(
            sql: "CREATE TABLE contact_profile (userId TEXT PRIMARY KEY NOT NULL REFERENCES user(id), activeProfile TEXT NOT NULL)")
    }

    /// The user's profile in the contacts app: their name, and two shadow profiles (personal, the
    /// default, and work).
    func profile(userId: String) throws -> ProfileRecord? {
        try queue.read { db in
            guard let name = try String.fetchOne(db, sql: "SELECT name FROM user WHERE id = ?", arguments: [userId]) else { return nil }
            let active = try String.fetchOne(db, sql: "SELECT activeProfile FROM contact_profile WHERE userId = ?", arguments: [userId])
            return ProfileRecord(
                displayName: name, profileClass: "person",
                shadowProfiles: [.init(id: "personal", name: "Personal"), .init(id: "work", name: "Work")],
                activeProfile: active ?? "personal")
        }
    }

    /// Makes `profileId` the user's active shadow profile; `false` when there is no such profile.
    static func switchProfile(_ db: Database, userId: String, to profileId: String) throws -> Bool {
        guard ["personal", "work"].contains(profileId) else { return false }
        try db.execute(sql: "INSERT OR REPLACE INTO contact_profile (userId, activeProfile) VALUES (?, ?)", arguments: [userId, profileId])
        return true
    }

    static func createDisputes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE dispute (id TEXT NOT NULL, userId TEXT NOT NULL REFERENCES user(id), reason TEXT NOT NULL,
                                      createdAt DATETIME NOT NULL, PRIMARY KEY (userId, id));
                """)
    }

    /// Adds the contacts the device imported (those it already has are left as they are).
    static func importContacts(_ db: Database, userId: String, _ contacts: [ImportedContact], seq: () throws -> Int, now: Date) throws
        -> Int
    {
        var added = 0
        for imported in contacts {
            guard
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact WHERE userId = ? AND id = ?", arguments: [userId, imported.id]) == 0
            else { continue }
            let contact = ContactRecord(
                id: imported.id, displayName: imported.displayName, phones: imported.phones, emails: imported.emails, photoPath: nil,
                circles: [], profileClass: "person", enrichmentBadges: [], updatedAt: now, deleted: nil)
            try db.execute(
                sql: "INSERT INTO contact (id, userId, body, changeSeq) VALUES (?, ?, ?, ?)",
                arguments: [contact.id, userId, String(decoding: try encoder.encode(contact), as: UTF8.self), try seq()])
            added += 1
        }
        return added
    }

    /// Changes the user's circles with `change`; `nil` from it means "no such circle" (nothing is written).
    static func changeCircles(_ db: Database, userId: String, _ change: (inout [CircleRecord]) -> Bool) throws -> [CircleRecord]? {
        guard let body = try String.fetchOne(db, sql: "SELECT circles FROM contact_owner WHERE userId = ?", arguments: [userId]) else {
            return nil
        }
        var circles = try decoder.decode([CircleRecord].self, from: Data(body.utf8))
        guard change(&circles) else { return nil }
        try db.execute(
            sql: "UPDATE contact_owner SET circles = ? WHERE userId = ?",
            arguments: [String(decoding: try encoder.encode(circles), as: UTF8.self), userId])
        return circles
    }

    /// Records a dispute of the score (a repeat of its id changes nothing).
    static func fileDispute(_ db: Database, userId: String, id: String, reason: String, now: Date) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO dispute (id, userId, reason, createdAt) VALUES (?, ?, ?, ?)", arguments: [id, userId, reason, now])
    }

    /// The user's disputes, oldest first.
    public func disputes(userId: String) throws -> [String] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT reason FROM dispute WHERE userId = ? ORDER BY createdAt, id", arguments: [userId])
        }
    }
}

extension BackendDatabase {
    /// How many premium subscriptions the user was charged for.
    public func premiumCharges(userId: String) throws -> Int {
        try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM premium_charge WHERE userId = ?", arguments: [userId]) ?? 0
        }
    }
}
