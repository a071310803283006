import CacheKit
import Foundation
import GRDB

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
            // Resolved in the transaction that records it: a rename to the server's id committed since the caller
            // read the record is seen here.
            var change = try Self.resolvingRenamedIds(in: change, db)
            if case .importContacts(let contacts) = change { change = .importContacts(try Self.addedByImport(contacts, db)) }
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

    /// Forgets a change the server confirmed: its effect stays, and it is settled as sent.
    func forgetSent(key: String, lease: UserDatabases.Lease) throws {
        try files.database(for: lease).write { db in
            let change = try Self.forgetSent(key: key, db)
            try Self.keepMemberCounts(of: change?.membershipCircles ?? [], db)
        }
    }

    /// Forgets the kept change `key` as sent, whoever learnt it (the queue's follower, or a sync page): it is settled as
    /// sent, and the contacts it imported are taken out of the imports still kept (the server has them now).
    /// - Returns: the change, if it was kept.
    static func forgetSent(key: String, _ db: Database) throws -> LocalChange? {
        let change = try Data.fetchOne(db, sql: "SELECT body FROM pending_change WHERE key = ?", arguments: [key])
            .flatMap { try? decoder.decode(LocalChange.self, from: $0) }
        try db.execute(sql: "DELETE FROM pending_change WHERE key = ?", arguments: [key])
        try settle(key: key, as: .sent, db)
        if case .importContacts(let sent)? = change { try forgetAdded(Set(sent.map(\.id)), db) }
        return change
    }

    /// The contacts of an import that it adds on the device: those the device lacks, and those another kept change
    /// adds (the same import asked again, another not confirmed yet), which an undo of that change would remove. A
    /// contact the device has from the server is left as it is, and is not the import's to remove when it is undone.
    static func addedByImport(_ contacts: [Contact], _ db: Database) throws -> [Contact] {
        let kept = Set(try pendingChanges(db).flatMap { $0.change.addedContacts.map(\.id) })
        return try contacts.filter { try kept.contains($0.id) || ContactRow.fetchOne(db, key: $0.id) == nil }
    }

    /// Takes contacts the server has (a sent import's, a sync page's, a refresh's) out of the imports still kept, so the
    /// undo of one leaves them.
    static func forgetAdded(_ ids: Set<String>, _ db: Database) throws {
        guard !ids.isEmpty else { return }
        for pending in try pendingChanges(db) {
            guard case .importContacts(let contacts) = pending.change else { continue }
            let left = contacts.filter { !ids.contains($0.id) }
            guard left.count < contacts.count else { continue }
            try db.execute(
                sql: "UPDATE pending_change SET body = ? WHERE key = ?",
                arguments: [try encoder.encode(LocalChange.importContacts(left)), pending.key])
        }
    }

    /// Where the change `key` stands: kept (pending), settled (sent or refused), or `nil` when the device
    /// no longer knows it (cleared since, or never queued).
    static func state(ofChange key: String, _ db: Database) throws -> ContactsChange.State? {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM pending_change WHERE key = ?", arguments: [key]) == true { return .pending }
        return try String.fetchOne(db, sql: "SELECT state FROM settled_change WHERE key = ?", arguments: [key])
            .flatMap(ContactsChange.State.init(rawValue:))
    }

    /// Records how a change ended, keeping the last thousand.
    static func settle(key: String, as outcome: ContactsChange.State, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO settled_change (key, state) VALUES (?, ?)", arguments: [key, outcome.rawValue])
        try db.execute(sql: "DELETE FROM settled_change WHERE rowid <= (SELECT MAX(rowid) FROM settled_change) - 1000")
    }

    /// Undoes a refused change: it is forgotten, the server's values given are stored in its place (a
    /// contact, `nil` when the server has none; the documents), a contact it added is removed (an import adds only
    /// what the device lacked, ``addedByImport(_:_:)``), and the changes still kept are applied again over them.
    ///
    /// A change undone as never sent (`notSent`) is undone only while it is still unqueued and `isRecording` says no
    /// call is recording it again, both checked in the undo's transaction: a change on its way to the queue is left.
    /// - Returns: whether the change was undone (`false`: it was no longer kept, or is on its way to the queue).
    @discardableResult
    func undo(
        key: String, as undone: ContactsChange.State, server: ServerValues, lease: UserDatabases.Lease,
        isRecording: () -> Bool = { false }
    ) throws -> Bool {
        let (database, index) = try opened(lease)
        return try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT body, queued FROM pending_change WHERE key = ?", arguments: [key]),
                let change = try? Self.decoder.decode(LocalChange.self, from: try row.decode(Data.self, atIndex: 0))
            else { return false }
            let onItsWay = try row.decode(Bool?.self, atIndex: 1) == true || isRecording()
            guard undone != .notSent || !onItsWay else { return false }
            try db.execute(sql: "DELETE FROM pending_change WHERE key = ?", arguments: [key])
            try Self.settle(key: key, as: undone, db)
            for contact in change.addedContacts {
                try ContactRow.deleteOne(db, key: contact.id)
                index.remove(id: contact.id, in: db)
            }
            try Self.write(server, db, index: index)
            try Self.reapplyPendingChanges(db, index: index)
            return true
        }
    }

    /// Writes the server's values: each contact given (deleted when the server has none), the documents given.
    /// A contact stored meanwhile with a later `updatedAt` (a sync that ran beside the fetch) is kept; one the
    /// server no longer has goes with its enrichment data.
    static func write(_ server: ServerValues, _ db: Database, index: SearchIndex) throws {
        try forgetAdded(Set(server.contacts.compactMap { $0.value == nil ? nil : $0.key }), db)
        for (id, contact) in server.contacts {
            if let contact {
                if let stored = try? ContactRow.fetchOne(db, key: id)?.contact(), stored.updatedAt > contact.updatedAt { continue }
                try ContactRow(contact, seen: true).write(db)
                index.upsert(contact.searchDocument, in: db)
            } else {
                try ContactRow.deleteOne(db, key: id)
                try db.execute(sql: "DELETE FROM document WHERE name = ?", arguments: ["enrichment:\(id)"])
                index.remove(id: id, in: db)
            }
        }
        if let circles = server.circles { try save(circles, as: "circles", db) }
        if let suggestions = server.suggestions { try save(suggestions, as: "suggestions", db) }
        if let profile = server.profile { try save(profile, as: "profile", db) }
    }

    /// The server's values a refusal restores, or a refresh brings.
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
            try changeContact(contactId, db, index: index) { contact in
                var contact = contact
                contact.displayName = name
                return contact
            }
        case .settle(let suggestionId, let status):
            var suggestions: [DuplicateSuggestion] = try document("suggestions", db) ?? []
            for position in suggestions.indices where suggestions[position].id == suggestionId {
                suggestions[position].status = SuggestionStatus(status)
            }
            try save(suggestions, as: "suggestions", db)
        case .importContacts(let contacts):
            for contact in contacts where try ContactRow.fetchOne(db, key: contact.id) == nil {
                try ContactRow(contact, seen: true).write(db)
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
                    circles[position].accessPolicies[field] = AccessAudience(audience)
                }
            }
        case .deleteCircle(let id):
            try changeCircles(db) { $0.removeAll { $0.id == id } }
        case .switchProfile(let id):
            guard var profile: ContactProfile = try document("profile", db) else { return }
            profile.activeProfile = id
            try save(profile, as: "profile", db)
        case .editContact(let contactId, let edit):
            try changeContact(contactId, db, index: index) { edit.applied(to: $0) }
        case .createContact(let contact):
            if try ContactRow.fetchOne(db, key: contact.id) == nil {
                try ContactRow(contact, seen: true).write(db)
                index.upsert(contact.searchDocument, in: db)
            } else {
                try db.execute(sql: "UPDATE contact SET seen = 1 WHERE id = ?", arguments: [contact.id])
            }
        case .deleteContact(let id):
            if try ContactRow.deleteOne(db, key: id) { index.remove(id: id, in: db) }
        case .addToCircle(let contactId, let circleId):
            try changeContact(contactId, db, index: index) { contact in
                var contact = contact
                if !contact.circles.contains(circleId) { contact.circles.append(circleId) }
                return contact
            }
        case .removeFromCircle(let contactId, let circleId):
            try changeContact(contactId, db, index: index) { contact in
                var contact = contact
                contact.circles.removeAll { $0 == circleId }
                return contact
            }
        case .restyleCircle(let id, let emoji, let color):
            try changeCircles(db) { circles in
                for position in circles.indices where circles[position].id == id {
                    circles[position].emoji = emoji
                    circles[position].color = color
                }
            }
        }
    }

    private static func changeContact(_ id: String, _ db: Database, index: SearchIndex, _ change: (Contact) -> Contact) throws {
        guard let row = try ContactRow.fetchOne(db, key: id), let contact = try? row.contact() else { return }
        let changed = change(contact)
        try ContactRow(changed, seen: row.seen).write(db)
        index.upsert(changed.searchDocument, in: db)
    }

    private static func changeCircles(_ db: Database, _ change: (inout [ContactCircle]) -> Void) throws {
        var circles: [ContactCircle] = try document("circles", db) ?? []
        change(&circles)
        try save(circles, as: "circles", db)
    }
}
