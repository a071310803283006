import CacheKit
import Foundation
import GRDB

// The reads, each one function of a database connection: what a one-shot read and an observation both run.
extension ContactsStore {
    static func contacts(_ db: Database, offset: Int, limit: Int) throws -> ContactsPage {
        let rows = try ContactRow.order(Column("sortKey"), Column("id")).limit(limit, offset: offset).fetchAll(db)
        return ContactsPage(contacts: try marked(rows.compactMap { try? $0.contact() }, db), total: try ContactRow.fetchCount(db))
    }

    /// The contact `id`, also by the device's id of a record its kit since renamed to the server's (a screen
    /// opened before the rename keeps showing it).
    static func contact(_ db: Database, id: String) throws -> Contact? {
        let row = try ContactRow.fetchOne(db, key: id) ?? ContactRow.fetchOne(db, key: try currentId(id, db))
        guard let contact = try? row?.contact() else { return nil }
        return try marked([contact], db).first
    }

    /// The contacts with these ids, in that order (the ones the device has): a body each, through one statement
    /// kept prepared (a search reads a page of them at every keystroke).
    static func contacts(_ db: Database, ids: [String]) throws -> [Contact] {
        let statement = try db.cachedStatement(sql: "SELECT body FROM contact WHERE id = ?")
        let contacts = try ids.compactMap { id in
            try Data.fetchOne(statement, arguments: [id]).flatMap { try? ContactRow.contact(from: $0) }
        }
        return try marked(contacts, db)
    }

    static func members(_ db: Database, circleId: String) throws -> [Contact] {
        let circleId = try currentId(circleId, db)
        let rows = try ContactRow.fetchAll(
            db,
            sql: "SELECT * FROM contact WHERE \(inCircle) ORDER BY sortKey, id", arguments: [circleId])
        return try marked(rows.compactMap { try? $0.contact() }, db)
    }

    /// The circles, each marked when a change of it waits. A circle whose members a waiting change edits is
    /// counted on the device (its members among the contacts); the others keep the server's count.
    static func circles(_ db: Database) throws -> [ContactCircle] {
        let circles: [ContactCircle] = try document("circles", db) ?? []
        let pending = try pendingChanges(db).map(\.change)
        let recount = Set(pending.flatMap(\.membershipCircles))
        return try circles.map { circle in
            var circle = circle
            circle.hasPendingChange = pending.contains { $0.circleIds.contains(circle.id) }
            if recount.contains(circle.id) { circle.memberCount = try memberCount(of: circle.id, db) }
            return circle
        }
    }

    /// How many contacts on the device are in the circle.
    static func memberCount(of circleId: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact WHERE \(inCircle)", arguments: [circleId]) ?? 0
    }

    /// A contact row is in the circle given as the statement's argument (its JSON's `circles` holds it).
    private static let inCircle = "EXISTS (SELECT 1 FROM json_each(CAST(contact.body AS TEXT), '$.circles') WHERE value = ?)"

    /// Keeps the device's count of each circle a sent change of membership edited, until the server's next
    /// summary brings its own.
    static func keepMemberCounts(of circleIds: [String], _ db: Database) throws {
        guard !circleIds.isEmpty, var circles: [ContactCircle] = try document("circles", db) else { return }
        for index in circles.indices where circleIds.contains(circles[index].id) {
            circles[index].memberCount = try memberCount(of: circles[index].id, db)
        }
        try save(circles, as: "circles", db)
    }

    static func suggestions(_ db: Database) throws -> [DuplicateSuggestion] {
        (try document("suggestions", db) ?? [DuplicateSuggestion]()).filter { $0.status == .pending }
    }

    /// The contacts, each marked when a change of it waits for the server.
    private static func marked(_ contacts: [Contact], _ db: Database) throws -> [Contact] {
        let pending = try pendingContacts(db)
        guard !pending.isEmpty else { return contacts }
        return contacts.map { contact in
            var contact = contact
            contact.hasPendingChange = pending.contains(contact.id)
            return contact
        }
    }

    /// The contacts that kept changes touch.
    private static func pendingContacts(_ db: Database) throws -> Set<String> {
        Set(try pendingChanges(db).flatMap(\.change.contactIds))
    }
}
