import APICore
import Foundation
import GRDB

// Remaps: a created record's client id and the server's, kept until its kit settles it.
extension MutationQueueStore {
    /// A settled remap stays, marked so: a change enqueued later by a screen that still holds the client id (read
    /// before its kit renamed it) is rewritten all the same.
    static func keepSettledRemaps(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE remap ADD COLUMN settled INTEGER NOT NULL DEFAULT 0")
    }

    static func createRemapTable(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE mutation ADD COLUMN creates TEXT;
                CREATE TABLE remap (clientId TEXT PRIMARY KEY NOT NULL, serverId TEXT NOT NULL, mutation TEXT NOT NULL);
                """)
    }

    /// Removes a sent mutation that created `remap.clientId`, keeps the remap, and rewrites every mutation
    /// still queued to say the server's id, in one transaction: none is ever sent with the client's id.
    func remove(_ id: Int64, remapping remap: IdRemap) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM mutation WHERE id = ?", arguments: [id])
            try db.execute(
                sql: "INSERT OR REPLACE INTO remap (clientId, serverId, mutation, settled) VALUES (?, ?, ?, 0)",
                arguments: [remap.clientId, remap.serverId, remap.mutation])
            for row in try Row.fetchAll(db, sql: "SELECT id, request FROM mutation") {
                guard let request = Self.decode(row["request"]) else { continue }
                let rewritten = request.replacingId(remap.clientId, with: remap.serverId)
                guard rewritten != request else { continue }
                try db.execute(
                    sql: "UPDATE mutation SET request = ? WHERE id = ?", arguments: [Self.encode(rewritten), row["id"] as Int64])
            }
        }
    }

    /// The remaps not yet settled, oldest first.
    func remaps() throws -> [IdRemap] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT clientId, serverId, mutation FROM remap WHERE settled = 0 ORDER BY rowid").map {
                IdRemap(clientId: $0["clientId"], serverId: $0["serverId"], mutation: $0["mutation"])
            }
        }
    }

    /// Marks a remap its kit has applied: no longer listed, still used to rewrite what is enqueued later.
    func settle(_ remap: IdRemap) throws {
        try database.write { db in try db.execute(sql: "UPDATE remap SET settled = 1 WHERE clientId = ?", arguments: [remap.clientId]) }
    }
}
