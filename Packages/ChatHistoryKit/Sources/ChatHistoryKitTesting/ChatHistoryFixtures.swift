import Foundation
import GRDB

/// Files of the chat history as earlier versions of the kit wrote them, for migration tests: each is
/// built with that version's schema, frozen here (never the current migration code), so opening it
/// with the current store proves the upgrade path.
public enum ChatHistoryFixtures {
    /// A history file as version 1 wrote it (no message state, no sync cursor): two threads, three
    /// messages.
    public static func writeVersion1(at url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations (identifier) VALUES ('v1');
                    CREATE TABLE thread (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, area TEXT NOT NULL,
                                         createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL);
                    CREATE INDEX thread_updated ON thread (updatedAt);
                    CREATE TABLE message (id TEXT PRIMARY KEY NOT NULL, threadId TEXT NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                                          role TEXT NOT NULL, text TEXT NOT NULL, createdAt DATETIME NOT NULL);
                    CREATE INDEX message_thread ON message (threadId, createdAt);
                    INSERT INTO thread VALUES ('t1', 'Question 1', 'chat', '2026-01-13 10:00:00.000', '2026-01-13 10:05:00.000');
                    INSERT INTO thread VALUES ('t2', 'Match: Sam', 'compatibility', '2026-01-14 10:00:00.000', '2026-01-14 10:01:00.000');
                    INSERT INTO message VALUES ('m1', 't1', 'user', 'What does week 1 hold?', '2026-01-13 10:00:00.000');
                    INSERT INTO message VALUES ('m2', 't1', 'assistant', 'A calm week.', '2026-01-13 10:05:00.000');
                    INSERT INTO message VALUES ('m3', 't2', 'user', 'Sam', '2026-01-14 10:00:00.000');
                    """)
        }
        try database.close()
    }

    /// A history file as version 2 wrote it (message state, the sync cursor in `sync_state`): version
    /// 1's threads and messages, one message pending, and the cursor `cursor-v2` after them.
    public static func writeVersion2(at url: URL) throws {
        try writeVersion1(at: url)
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO grdb_migrations (identifier) VALUES ('v2-pending-and-sync');
                    ALTER TABLE message ADD COLUMN state TEXT NOT NULL DEFAULT 'sent';
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    INSERT INTO message VALUES ('m4', 't2', 'user', 'And Alex?', '2026-01-14 10:02:00.000', 'pending');
                    INSERT INTO sync_state VALUES ('threadsCursor', 'cursor-v2');
                    """)
        }
        try database.close()
    }
}
