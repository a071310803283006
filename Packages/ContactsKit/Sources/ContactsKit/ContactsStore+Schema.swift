import CacheKit
import Foundation
import GRDB

// The file's schema, version by version, and its JSON form.
extension ContactsStore {
    /// Every schema version, from the first. A migration is never edited once shipped; a new one is added,
    /// with a fixture of the version before it in `ContactsKitTesting`.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contact (id TEXT PRIMARY KEY NOT NULL, sortKey TEXT NOT NULL, body BLOB NOT NULL,
                                          seen INTEGER NOT NULL DEFAULT 1);
                    CREATE INDEX contact_by_name ON contact (sortKey, id);
                    CREATE TABLE document (name TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    """)
            try SyncCheckpoint.createTable(db)
        }
        migrator.registerMigration("v2: pending changes, the run's pending token") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pending_change (key TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL, body BLOB NOT NULL,
                                                 queued INTEGER NOT NULL DEFAULT 0, mutation_id INTEGER);
                    """)
            try SyncCheckpoint.createTable(db)
        }
        migrator.registerMigration("v3: how changes ended, records refreshed") { db in
            try db.execute(
                sql: """
                    CREATE TABLE settled_change (key TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL);
                    CREATE TABLE refreshed (key TEXT PRIMARY KEY NOT NULL, at DOUBLE NOT NULL);
                    """)
        }
        return migrator
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.format(date))
        }
        return encoder
    }()
    /// ISO 8601 dates with or without fractional seconds.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            // Foundation's ISO 8601 style reads fractional seconds too (JSONDecoder's `.iso8601` does not).
            if let date = WireDate.parse(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Not an ISO 8601 date: \(text)"))
        }
        return decoder
    }()
}
