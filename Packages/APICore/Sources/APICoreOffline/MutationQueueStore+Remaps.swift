import APICore
import Foundation
import GRDB

// Remaps: a created record's client id and the server's, kept until its kit settles it.
extension MutationQueueStore {
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
                sql: "INSERT OR REPLACE INTO remap (clientId, serverId, mutation) VALUES (?, ?, ?)",
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
            try Row.fetchAll(db, sql: "SELECT clientId, serverId, mutation FROM remap ORDER BY rowid").map {
                IdRemap(clientId: $0["clientId"], serverId: $0["serverId"], mutation: $0["mutation"])
            }
        }
    }

    /// Forgets a remap its kit has applied.
    func settle(_ remap: IdRemap) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM remap WHERE clientId = ?", arguments: [remap.clientId]) }
    }
}
