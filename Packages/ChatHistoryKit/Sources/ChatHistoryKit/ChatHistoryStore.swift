import CacheKit
import Foundation
import GRDB

/// The chat history on the device: one SQLite file per user (GRDB, migrated from its first version),
/// kept until logout or deletion. The backend is the source of truth, so the whole history can be
/// cleared at logout and restored by ``ChatHistoryClient/syncFromServer()``.
///
/// It is the kit's clearing participant (`chat-history`): ``clearAll()`` deletes every file.
public final class ChatHistoryStore: CacheClearingParticipant {
    /// The per-user files.
    let files: UserDatabases

    /// A store in `directory` (files are created on first use).
    public init(directory: URL) {
        files = UserDatabases(directory: directory, prefix: "history", migrator: Self.migrator)
    }

    /// The folder of the per-user files.
    public var directory: URL { files.directory }

    /// `chat-history`.
    public var participantName: String { "chat-history" }
    /// Kit data.
    public var category: CacheCategory { .data }

    // MARK: Reading

    /// The user's threads, most recently changed first; only `area`'s when given.
    public func threads(userId: String, area: ChatArea? = nil) throws -> [ChatThread] {
        try read(userId, else: []) { db in
            var request = ThreadRow.order(Column("updatedAt").desc, Column("id").desc)
            if let area { request = request.filter(Column("area") == area.rawValue) }
            return try request.fetchAll(db).map(\.thread)
        }
    }

    /// A thread's messages, oldest first.
    public func messages(userId: String, threadId: String) throws -> [ChatMessage] {
        try read(userId, else: []) { db in
            try MessageRow.filter(Column("threadId") == threadId).order(Column("createdAt"), Column("id")).fetchAll(db).map(\.message)
        }
    }

    /// Where the history's sync stands for the user: the run in progress and the last completed one.
    public func checkpoint(userId: String) throws -> SyncCheckpoint? {
        try read(userId, else: nil) { db in try SyncCheckpoint.fetch(db, sync: ChatHistorySync.name) }
    }

    /// A lease on the user's file as of now: what a write of work beginning now goes through (refused once
    /// a logout or an account deletion cleared the files since).
    public func lease(for userId: String) -> UserDatabases.Lease {
        files.lease(for: userId)
    }

    /// Reads the user's file, or returns `empty` when the device has none (a read never creates one).
    private func read<T>(_ userId: String, else empty: T, _ body: (Database) throws -> T) throws -> T {
        guard let database = try files.existingDatabase(for: userId) else { return empty }
        return try database.read(body)
    }

    // MARK: Writing

    /// Stores a page of threads with their messages and the sync's checkpoint after them, in one
    /// transaction: a sync that fails part way resumes after the last page stored. Pending messages the
    /// server now has become sent.
    func store(lease: UserDatabases.Lease, threads: [ChatThread], messages: [ChatMessage], checkpoint: SyncCheckpoint) throws {
        try files.database(for: lease).write { db in
            for thread in threads { try ThreadRow(thread).save(db) }
            for message in messages { try MessageRow(message).save(db) }
            try checkpoint.save(db, sync: ChatHistorySync.name)
        }
    }

    /// Shows a message at once as pending (and its thread, if new).
    func addPending(lease: UserDatabases.Lease, thread: ChatThread?, message: ChatMessage) throws {
        try files.database(for: lease).write { db in
            if let thread, try ThreadRow.fetchOne(db, key: thread.id) == nil { try ThreadRow(thread).insert(db) }
            try MessageRow(message).save(db)
            try db.execute(
                sql: "UPDATE thread SET updatedAt = MAX(updatedAt, ?) WHERE id = ?",
                arguments: [message.createdAt, message.threadId])
        }
    }

    /// Marks a pending message failed (the server refused it for good).
    func markFailed(lease: UserDatabases.Lease, messageId: String) throws {
        try files.database(for: lease).write { db in
            try db.execute(sql: "UPDATE message SET state = 'failed' WHERE id = ?", arguments: [messageId])
        }
    }

    /// Deletes one user's file (account deletion).
    public func erase(userId: String) throws {
        try files.erase(userId: userId)
    }

    // MARK: Clearing participant

    /// Deletes every user's file (logout: the history is recoverable from the server).
    public func clearAll() async throws {
        try files.removeAll()
    }

    /// Nothing here belongs to an account.
    public func clear(forAccountId accountId: String) async throws {}
    /// No keyed entries.
    public func clear(forKey key: String) async throws {}

    /// Threads and messages held, over every open file.
    public func statistics() async throws -> [CacheStoreStatistics] {
        var usage = CacheStoreUsage(count: 0, bytes: 0)
        for database in files.openDatabases {
            let counts = try await database.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM thread) + (SELECT COUNT(*) FROM message)") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(text)), 0) FROM message") ?? 0
                )
            }
            usage.count += counts.0
            usage.bytes += counts.1
        }
        return [
            CacheStoreStatistics(
                participant: participantName, category: category, counts: CacheStatistics(store: "sqlite", feature: participantName),
                usage: usage)
        ]
    }

    // MARK: Files

    /// The user's file, named by a keyed hash of the user id (the key is this installation's, in the same
    /// folder): a list of likely user ids says nothing about whose file it is.
    public func fileURL(for userId: String) -> URL {
        files.fileURL(for: userId)
    }

    /// Every schema version, from the first. A migration is never edited once shipped; a new one is added.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thread (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, area TEXT NOT NULL,
                                         createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL);
                    CREATE INDEX thread_updated ON thread (updatedAt);
                    CREATE TABLE message (id TEXT PRIMARY KEY NOT NULL, threadId TEXT NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                                          role TEXT NOT NULL, text TEXT NOT NULL, createdAt DATETIME NOT NULL);
                    CREATE INDEX message_thread ON message (threadId, createdAt);
                    """)
        }
        migrator.registerMigration("v2-pending-and-sync") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN state TEXT NOT NULL DEFAULT 'sent';
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    """)
        }
        // The sync's cursor moves to the checkpoint every kit's sync keeps (CacheKit's `SyncCheckpoint`): a
        // history synced before continues incrementally from its cursor.
        migrator.registerMigration("v3-sync-checkpoint") { db in
            try SyncCheckpoint.createTable(db)
            try db.execute(
                sql: """
                    INSERT INTO sync_checkpoint (name, mode, changes_token, last_completed_at)
                    SELECT ?, 'incremental', value, CAST(strftime('%s', 'now') AS DOUBLE) FROM sync_state WHERE key = 'threadsCursor';
                    DROP TABLE sync_state;
                    """, arguments: [ChatHistorySync.name])
        }
        return migrator
    }
}

/// A thread as a row.
struct ThreadRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "thread"
    var id: String
    var title: String
    var area: String
    var createdAt: Date
    var updatedAt: Date

    init(_ thread: ChatThread) {
        id = thread.id
        title = thread.title
        area = thread.area.rawValue
        createdAt = thread.createdAt
        updatedAt = thread.updatedAt
    }

    var thread: ChatThread {
        ChatThread(id: id, title: title, area: ChatArea(rawValue: area) ?? .chat, createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// A message as a row.
struct MessageRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "message"
    var id: String
    var threadId: String
    var role: String
    var text: String
    var createdAt: Date
    var state: String

    init(_ message: ChatMessage) {
        id = message.id
        threadId = message.threadId
        role = message.role
        text = message.text
        createdAt = message.createdAt
        state = message.state.rawValue
    }

    var message: ChatMessage {
        ChatMessage(
            id: id, threadId: threadId, role: role, text: text, createdAt: createdAt, state: ChatMessage.State(rawValue: state) ?? .sent)
    }
}
