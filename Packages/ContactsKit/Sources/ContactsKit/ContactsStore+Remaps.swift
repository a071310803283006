import CacheKit
import Foundation
import GRDB

// A record the device created, renamed to the id the server gave it.
extension ContactsStore {
    /// Renames the contact or circle `old` to `new` everywhere the user's file names it, in one transaction:
    /// its row (dropped when a sync already brought the server's), every contact's circles, the circles,
    /// suggestions and profile, the changes kept for the queue and the refresh stamps. Renaming an id the file
    /// no longer holds changes nothing.
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    func rename(_ old: String, to new: String, lease: UserDatabases.Lease) throws {
        let (database, index) = try opened(lease)
        let quotedOld = String(decoding: try Self.encoder.encode(old), as: UTF8.self)
        let quotedNew = String(decoding: try Self.encoder.encode(new), as: UTF8.self)
        try database.write { db in
            // Every body that names it, but the renamed ids themselves (a second remap of one id must not turn
            // an old entry's key into another record's id).
            for table in ["contact", "document", "pending_change"] {
                try db.execute(
                    sql: """
                        UPDATE \(table) SET body = CAST(replace(CAST(body AS TEXT), ?, ?) AS BLOB)
                        WHERE instr(CAST(body AS TEXT), ?) > 0\(table == "document" ? " AND name != ?" : "")
                        """,
                    arguments: StatementArguments(
                        [quotedOld, quotedNew, quotedOld] + (table == "document" ? [Self.renamedIdsDocument] : [])))
            }
            // A screen that still holds the old id (read before the rename) acts on the record under its new one.
            var renamed: [String: String] = try Self.document(Self.renamedIdsDocument, db) ?? [:]
            renamed[old] = new
            try Self.save(renamed, as: Self.renamedIdsDocument, db)
            // The server's stamp, if a refresh brought it first, stands.
            try db.execute(
                sql: "UPDATE OR IGNORE refreshed SET key = ? WHERE key = ?",
                arguments: [Self.refreshKey(contact: new), Self.refreshKey(contact: old)])
            try db.execute(sql: "DELETE FROM refreshed WHERE key = ?", arguments: [Self.refreshKey(contact: old)])
            // A circle a refresh brought under the server's id before the rename is there once.
            var circles: [ContactCircle] = try Self.document("circles", db) ?? []
            var seen = Set<String>()
            let count = circles.count
            circles.removeAll { !seen.insert($0.id).inserted }
            if circles.count != count { try Self.save(circles, as: "circles", db) }
            guard try ContactRow.fetchOne(db, key: old) != nil else { return }
            index.remove(id: old, in: db)
            if try ContactRow.fetchOne(db, key: new) != nil {
                // The sync brought the server's record first: it stands, the device's copy goes.
                try db.execute(sql: "DELETE FROM contact WHERE id = ?", arguments: [old])
            } else {
                try db.execute(sql: "UPDATE contact SET id = ? WHERE id = ?", arguments: [new, old])
            }
            if let contact = try ContactRow.fetchOne(db, key: new).flatMap({ try? $0.contact() }) {
                index.upsert(contact.searchDocument, in: db)
            }
        }
    }

    /// The document of the ids renamed: the device's id of each record the server stored under its own, to that id.
    static let renamedIdsDocument = "renamed-ids"

    /// `change` with every id the kit renamed to the server's since (a record created on the device) made the
    /// server's.
    func resolvingRenamedIds(in change: LocalChange, userId: String) throws -> LocalChange {
        try read(userId, else: change) { db in try Self.resolvingRenamedIds(in: change, db) }
    }

    /// The id the user's file knows `id` by now: the server's, for a record the device created and its kit
    /// renamed; else `id`.
    static func currentId(_ id: String, _ db: Database) throws -> String {
        let renamed: [String: String] = try document(renamedIdsDocument, db) ?? [:]
        return renamed[id] ?? id
    }

    static func resolvingRenamedIds(in change: LocalChange, _ db: Database) throws -> LocalChange {
        let renamed: [String: String] = try document(renamedIdsDocument, db) ?? [:]
        guard !renamed.isEmpty else { return change }
        var text = String(decoding: try encoder.encode(change), as: UTF8.self)
        for (old, new) in renamed {
            let quotedOld = String(decoding: try encoder.encode(old), as: UTF8.self)
            guard text.contains(quotedOld) else { continue }
            text = text.replacingOccurrences(of: quotedOld, with: String(decoding: try encoder.encode(new), as: UTF8.self))
        }
        return try decoder.decode(LocalChange.self, from: Data(text.utf8))
    }
}
