import Foundation
import GRDB

extension DiskStore {
    /// Schema versions, applied in order by GRDB's `DatabaseMigrator`. A file whose schema cannot be
    /// migrated (damaged) is discarded: it is a cache. A newer app's file is used as it is: the migrator leaves
    /// migrations it does not know alone.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entry (
                        key TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL,
                        checksum INTEGER NOT NULL,
                        size INTEGER NOT NULL,
                        stored_at REAL NOT NULL,
                        expires_at REAL,
                        timeout TEXT NOT NULL,
                        user_id TEXT,
                        account_id TEXT,
                        tags TEXT NOT NULL,
                        access_seq INTEGER NOT NULL
                    );
                    CREATE INDEX entry_by_access ON entry(access_seq);
                    CREATE INDEX entry_by_user ON entry(user_id);
                    CREATE INDEX entry_by_account ON entry(account_id);
                    CREATE TABLE entry_tag (
                        key TEXT NOT NULL REFERENCES entry(key) ON DELETE CASCADE,
                        tag TEXT NOT NULL,
                        PRIMARY KEY (tag, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX entry_tag_by_key ON entry_tag(key);
                    """)
        }
        return migrator
    }

    static let selectEntrySQL = """
        SELECT value, checksum, stored_at, expires_at, timeout, user_id, account_id, tags FROM entry WHERE key = ?
        """
    static let selectMetadataSQL = """
        SELECT key, size, stored_at, expires_at, timeout, user_id, account_id, tags, access_seq FROM entry
        """
    static let upsertSQL = """
        INSERT INTO entry (key, value, checksum, size, stored_at, expires_at, timeout, user_id, account_id, tags, access_seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(key) DO UPDATE SET
            value = excluded.value, checksum = excluded.checksum, size = excluded.size,
            stored_at = excluded.stored_at, expires_at = excluded.expires_at, timeout = excluded.timeout,
            user_id = excluded.user_id, account_id = excluded.account_id, tags = excluded.tags,
            access_seq = excluded.access_seq
        """

    /// Tags are kept in a column (to rebuild metadata) and in `entry_tag` (to select by tag exactly).
    static let tagSeparator: Character = "\u{1F}"

    static func encodeTags(_ tags: Set<String>) -> String {
        tags.sorted().joined(separator: String(tagSeparator))
    }

    static func decodeTags(_ text: String) -> Set<String> {
        text.isEmpty ? [] : Set(text.split(separator: tagSeparator, omittingEmptySubsequences: false).map(String.init))
    }

    /// Metadata from the columns `stored_at, expires_at, timeout, user_id, account_id, tags` starting at `first`.
    static func metadata(from row: Row, startingAt first: Int) throws -> CacheEntryMetadata {
        let timeoutText = try row.decode(String.self, atIndex: first + 2)
        guard let timeout = CacheTimeout(storageForm: timeoutText) else {
            throw DiskStoreCorruption.unreadableTimeout(timeoutText)
        }
        let expiresAt = try row.decode(Double?.self, atIndex: first + 1)
        return CacheEntryMetadata(
            storedAt: Date(timeIntervalSince1970: try row.decode(Double.self, atIndex: first)),
            expiresAt: expiresAt.map(Date.init(timeIntervalSince1970:)),
            timeout: timeout,
            scope: CacheScope(
                userId: try row.decode(String?.self, atIndex: first + 3),
                accountId: try row.decode(String?.self, atIndex: first + 4),
                tags: decodeTags(try row.decode(String.self, atIndex: first + 5))
            )
        )
    }
}

/// Why a stored entry was judged corrupt and dropped.
enum DiskStoreCorruption: Error {
    case checksumMismatch
    case unreadableTimeout(String)
}
