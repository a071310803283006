import Foundation
import GRDB

/// Files of the address book as each released version of the kit wrote them, for migration tests: each is
/// built with that version's schema, frozen here (never the current migration code), so opening it with
/// the current store proves the upgrade path. Add one for each new schema version before changing it.
public enum ContactsFixtures {
    /// A file as version 1 wrote it: two contacts (Zoë Martin, Ana Pérez), the circles, a score and the
    /// checkpoint of a completed full sync (changes token `7`, completed 2026-01-15 10:00 UTC).
    public static func writeVersion1(at url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations (identifier) VALUES ('v1');
                    CREATE TABLE contact (id TEXT PRIMARY KEY NOT NULL, sortKey TEXT NOT NULL, body BLOB NOT NULL,
                                          seen INTEGER NOT NULL DEFAULT 1);
                    CREATE INDEX contact_by_name ON contact (sortKey, id);
                    CREATE TABLE document (name TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    CREATE TABLE sync_checkpoint (
                        name TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, page_cursor TEXT, changes_token TEXT,
                        last_completed_at DOUBLE, last_full_sync_at DOUBLE);
                    INSERT INTO sync_checkpoint VALUES ('contacts', 'full', NULL, '7', 1768471200, 1768471200);
                    """)
            let contacts = [
                #"{"id":"c1","displayName":"Zoë Martin","phones":["+1 (555) 010-2030"],"emails":["zoe@example.com"],"photoPath":"/avatars/c1.png","circles":["circle-1"],"profileClass":"person","enrichmentBadges":["verified"],"updatedAt":"2026-01-15T09:00:00Z"}"#,
                #"{"id":"c2","displayName":"Ana Pérez","phones":["612 34 56 78"],"emails":["ana@example.com"],"circles":[],"profileClass":"family","enrichmentBadges":[],"updatedAt":"2026-01-15T09:00:00Z"}"#,
            ]
            for (id, sortKey, body) in [("c1", "zoe martin", contacts[0]), ("c2", "ana perez", contacts[1])] {
                try db.execute(
                    sql: "INSERT INTO contact (id, sortKey, body, seen) VALUES (?, ?, ?, 1)", arguments: [id, sortKey, Data(body.utf8)])
            }
            let circles =
                ##"[{"id":"circle-1","name":"Family","emoji":"🏠","color":"#E4572E","type":"mandatory","memberCount":1,"accessPolicies":{"phone":"circle"}}]"##
            let score =
                #"{"value":71,"quality":0.8,"position":0.6,"stability":0.9,"trust":0.7,"formulaVersion":"2.1","computedAt":"2026-01-15T09:00:00Z","history":[{"day":"2026-01-14","value":70},{"day":"2026-01-15","value":71}]}"#
            try db.execute(
                sql: "INSERT INTO document (name, body) VALUES ('circles', ?), ('score', ?)",
                arguments: [Data(circles.utf8), Data(score.utf8)])
        }
        try database.close()
    }

    /// A file as version 2 wrote it: version 1's, with the sync's pending token and one change kept on the
    /// device (Zoë Martin renamed "Zoë M.", queued as mutation 1 with the key `rename-c1`).
    public static func writeVersion2(at url: URL) throws {
        try writeVersion1(at: url)
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO grdb_migrations (identifier) VALUES ('v2: pending changes, the run''s pending token');
                    ALTER TABLE sync_checkpoint ADD COLUMN pending_changes_token TEXT;
                    CREATE TABLE pending_change (key TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL, body BLOB NOT NULL,
                                                 queued INTEGER NOT NULL DEFAULT 0, mutation_id INTEGER);
                    """)
            let body = #"{"rename":{"contactId":"c1","name":"Zoë M."}}"#
            try db.execute(
                sql: "INSERT INTO pending_change (key, seq, body, queued, mutation_id) VALUES ('rename-c1', 1, ?, 1, 1)",
                arguments: [Data(body.utf8)])
            let renamed =
                #"{"id":"c1","displayName":"Zoë M.","phones":["+1 (555) 010-2030"],"emails":["zoe@example.com"],"photoPath":"/avatars/c1.png","circles":["circle-1"],"profileClass":"person","enrichmentBadges":["verified"],"updatedAt":"2026-01-15T09:00:00Z"}"#
            try db.execute(sql: "UPDATE contact SET body = ?, sortKey = 'zoe m.' WHERE id = 'c1'", arguments: [Data(renamed.utf8)])
        }
        try database.close()
    }
}
