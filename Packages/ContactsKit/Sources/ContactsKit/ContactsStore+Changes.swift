import CacheKit
import Foundation
import GRDB

/// A change made on the device, shown at once and kept with its effect until the server confirms it (sent)
/// or refuses it: a sync applies the kept ones again over every page it stores, so the user's pending
/// changes always win over older server data.
enum LocalChange: Codable, Sendable, Hashable {
    case rename(contactId: String, name: String)
    case settle(suggestionId: String, status: String)
    case importContacts([Contact])
    case createCircle(ContactCircle)
    case renameCircle(id: String, name: String)
    case setAccessPolicy(circleId: String, field: String, audience: String)
    case deleteCircle(id: String)
    case switchProfile(id: String)

    /// The contact a refusal restores from the server, if the change is a contact's own.
    var contactId: String? {
        if case .rename(let id, _) = self { id } else { nil }
    }
}

/// A change kept on the device until the server confirms or refuses it.
struct PendingChange: Sendable, Hashable {
    /// The queued mutation's idempotency key.
    var key: String
    var change: LocalChange
    /// Whether it reached the mutation queue (only then can its absence there mean it was sent).
    var queued: Bool
    /// The queued mutation's id, once queued: a refusal is matched by key and id, so an older refusal of the
    /// same key (an import asked again) never undoes a newer change.
    var mutationId: Int64?
}

extension ContactsStore {
    /// Applies a change made on the device and keeps it, in one transaction, until the server confirms or
    /// refuses it (`key`: the queued mutation's idempotency key).
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    func record(_ change: LocalChange, key: String, lease: UserDatabases.Lease) throws {
        let (database, index) = try opened(lease)
        try database.write { db in
            try Self.apply(change, db, index: index)
            let seq = (try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) + 1 FROM pending_change")) ?? 1
            try db.execute(
                sql: """
                    INSERT INTO pending_change (key, seq, body, queued) VALUES (?, ?, ?, 0)
                    ON CONFLICT (key) DO UPDATE SET body = excluded.body
                    """,
                arguments: [key, seq, try Self.encoder.encode(change)])
        }
    }

    /// Marks the change as in the mutation queue, as mutation `mutationId`.
    func markQueued(key: String, mutationId: Int64, lease: UserDatabases.Lease) throws {
        try files.database(for: lease).write { db in
            try db.execute(sql: "UPDATE pending_change SET queued = 1, mutation_id = ? WHERE key = ?", arguments: [mutationId, key])
        }
    }

    /// The changes kept for the user, oldest first.
    func pendingChanges(userId: String) throws -> [PendingChange] {
        try read(userId, else: []) { db in try Self.pendingChanges(db) }
    }

    /// Forgets a change: the server confirmed it (its effect stays), or it never reached the queue.
    func forget(key: String, lease: UserDatabases.Lease) throws {
        try files.database(for: lease).write { db in
            try db.execute(sql: "DELETE FROM pending_change WHERE key = ?", arguments: [key])
        }
    }

    /// Undoes a refused change: it is forgotten, the server's values given are stored in its place (a
    /// contact, `nil` when the server has none; the documents), an imported contact the server never took
    /// is removed, and the changes still kept are applied again over them.
    func undo(
        key: String, server: ServerValues, lease: UserDatabases.Lease
    ) throws {
        let (database, index) = try opened(lease)
        try database.write { db in
            guard
                let body = try Data.fetchOne(db, sql: "SELECT body FROM pending_change WHERE key = ?", arguments: [key]),
                let change = try? Self.decoder.decode(LocalChange.self, from: body)
            else { return }
            try db.execute(sql: "DELETE FROM pending_change WHERE key = ?", arguments: [key])
            if case .importContacts(let contacts) = change {
                for contact in contacts {
                    try ContactRow.deleteOne(db, key: contact.id)
                    index.remove(id: contact.id, in: db)
                }
            }
            if let id = change.contactId {
                if let contact = server.contacts[id] ?? nil {
                    try ContactRow(contact, seen: true).save(db)
                    index.upsert(contact.searchDocument, in: db)
                } else if server.contacts.keys.contains(id) {
                    try ContactRow.deleteOne(db, key: id)
                    index.remove(id: id, in: db)
                }
            }
            if let circles = server.circles { try Self.save(circles, as: "circles", db) }
            if let suggestions = server.suggestions { try Self.save(suggestions, as: "suggestions", db) }
            if let profile = server.profile { try Self.save(profile, as: "profile", db) }
            try Self.reapplyPendingChanges(db, index: index)
        }
    }

    /// The server's values a refusal restores.
    struct ServerValues: Sendable {
        /// Contacts by id; `nil` for one the server does not have.
        var contacts: [String: Contact?] = [:]
        var circles: [ContactCircle]?
        var suggestions: [DuplicateSuggestion]?
        var profile: ContactProfile?
    }

    // MARK: Effects

    static func pendingChanges(_ db: Database) throws -> [PendingChange] {
        try Row.fetchAll(db, sql: "SELECT key, body, queued, mutation_id FROM pending_change ORDER BY seq").compactMap { row in
            guard let change = try? decoder.decode(LocalChange.self, from: row["body"] as Data) else { return nil }
            return PendingChange(key: row["key"], change: change, queued: row["queued"], mutationId: row["mutation_id"])
        }
    }

    /// Applies every kept change again, oldest first (after a sync page or a refusal).
    static func reapplyPendingChanges(_ db: Database, index: SearchIndex) throws {
        for pending in try pendingChanges(db) { try apply(pending.change, db, index: index) }
    }

    /// The one place a change's effect on the device is written.
    static func apply(_ change: LocalChange, _ db: Database, index: SearchIndex) throws {
        switch change {
        case .rename(let contactId, let name):
            guard let row = try ContactRow.fetchOne(db, key: contactId), var contact = try? row.contact() else { return }
            contact.displayName = name
            try ContactRow(contact, seen: row.seen).save(db)
            index.upsert(contact.searchDocument, in: db)
        case .settle(let suggestionId, let status):
            var suggestions: [DuplicateSuggestion] = try document("suggestions", db) ?? []
            for position in suggestions.indices where suggestions[position].id == suggestionId { suggestions[position].status = status }
            try save(suggestions, as: "suggestions", db)
        case .importContacts(let contacts):
            for contact in contacts where try ContactRow.fetchOne(db, key: contact.id) == nil {
                try ContactRow(contact, seen: true).save(db)
                index.upsert(contact.searchDocument, in: db)
            }
            try db.execute(
                sql: "UPDATE contact SET seen = 1 WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [String(decoding: try encoder.encode(contacts.map(\.id)), as: UTF8.self)])
        case .createCircle(let circle):
            try changeCircles(db) { circles in if !circles.contains(where: { $0.id == circle.id }) { circles.append(circle) } }
        case .renameCircle(let id, let name):
            try changeCircles(db) { circles in
                for position in circles.indices where circles[position].id == id { circles[position].name = name }
            }
        case .setAccessPolicy(let circleId, let field, let audience):
            try changeCircles(db) { circles in
                for position in circles.indices where circles[position].id == circleId {
                    circles[position].accessPolicies[field] = audience
                }
            }
        case .deleteCircle(let id):
            try changeCircles(db) { $0.removeAll { $0.id == id } }
        case .switchProfile(let id):
            guard var profile: ContactProfile = try document("profile", db) else { return }
            profile.activeProfile = id
            try save(profile, as: "profile", db)
        }
    }

    private static func changeCircles(_ db: Database, _ change: (inout [ContactCircle]) -> Void) throws {
        var circles: [ContactCircle] = try document("circles", db) ?? []
        change(&circles)
        try save(circles, as: "circles", db)
    }
}
