import Foundation
import GRDB

// The backend's schema, one migration a change, applied in order when a database is opened.
extension BackendDatabase {
    static func migrator(passwordWork: PasswordWork) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pillar (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, position INTEGER NOT NULL);
                    CREATE TABLE funnel (
                        id TEXT PRIMARY KEY NOT NULL,
                        slug TEXT NOT NULL UNIQUE,
                        title TEXT NOT NULL,
                        description TEXT NOT NULL,
                        pillarId TEXT REFERENCES pillar(id),
                        isActive INTEGER NOT NULL,
                        version INTEGER NOT NULL,
                        updatedAt DATETIME NOT NULL
                    );
                    CREATE INDEX funnel_order ON funnel(title COLLATE NOCASE, slug);
                    CREATE TABLE catalog_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL,
                                               modifiedAt DATETIME NOT NULL);
                    """)
        }
        migrator.registerMigration("v2-users") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (id TEXT PRIMARY KEY NOT NULL, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                                       salt TEXT NOT NULL, passwordHash TEXT NOT NULL);
                    CREATE TABLE account (id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL REFERENCES user(id),
                                          name TEXT NOT NULL, balance INTEGER NOT NULL, currency TEXT NOT NULL);
                    CREATE TABLE "transaction" (id TEXT PRIMARY KEY NOT NULL, accountId TEXT NOT NULL REFERENCES account(id),
                                                amount INTEGER NOT NULL, description TEXT NOT NULL, date DATETIME NOT NULL);
                    CREATE INDEX transaction_by_account ON "transaction"(accountId, date DESC, id DESC);
                    """)
        }
        migrator.registerMigration("v3-chat") { db in
            try db.execute(
                sql: """
                    CREATE TABLE chat_thread (id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL REFERENCES user(id),
                                              title TEXT NOT NULL, area TEXT NOT NULL, createdAt DATETIME NOT NULL,
                                              updatedAt DATETIME NOT NULL);
                    CREATE INDEX chat_thread_by_user ON chat_thread(userId, updatedAt);
                    CREATE TABLE chat_message (id TEXT PRIMARY KEY NOT NULL,
                                               threadId TEXT NOT NULL REFERENCES chat_thread(id) ON DELETE CASCADE,
                                               role TEXT NOT NULL, text TEXT NOT NULL, createdAt DATETIME NOT NULL);
                    CREATE INDEX chat_message_by_thread ON chat_message(threadId, createdAt, id);
                    """)
        }
        migrator.registerMigration("v4-tier") { db in
            try db.execute(sql: "ALTER TABLE funnel ADD COLUMN tier TEXT NOT NULL DEFAULT 'free'")
        }
        migrator.registerMigration("v5-favorites", migrate: createFavorites)
        migrator.registerMigration("v6-chat-message-key", migrate: keyMessagesByThread)
        migrator.registerMigration("v7-scrypt-passwords") { db in try rehashDemoPasswords(db, work: passwordWork) }
        migrator.registerMigration("v8-contacts", migrate: createContacts)
        migrator.registerMigration("v9-disputes", migrate: createDisputes)
        migrator.registerMigration("v10-contact-profiles", migrate: createProfiles)
        migrator.registerMigration("v11-idempotency-fingerprints") { db in
            try db.execute(sql: "ALTER TABLE contact_answer ADD COLUMN fingerprint TEXT")
            try db.execute(sql: "ALTER TABLE idempotent_answer ADD COLUMN fingerprint TEXT")
        }
        migrator.registerMigration("v12-contact-log", migrate: createContactLog)
        // A payment's idempotency key (per account, which only its owner can pay from) and its transaction.
        migrator.registerMigration("v13-payment-keys-and-charges") { db in
            try db.execute(
                sql: """
                    CREATE TABLE payment_key (
                        accountId TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, transactionId TEXT NOT NULL,
                        PRIMARY KEY (accountId, key))
                    """)
            // Each premium subscription charged (what a retried purchase must never add twice).
            try db.execute(sql: "CREATE TABLE premium_charge (userId TEXT NOT NULL, chargedAt DOUBLE NOT NULL)")
        }
        return migrator
    }
}
