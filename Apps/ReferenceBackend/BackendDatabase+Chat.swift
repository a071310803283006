import Foundation
import GRDB

/// A conversation of a user (the chat history: `area` is `chat` or `compatibility`).
public struct ChatThread: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "chat_thread"

    /// Stable identifier, chosen by the client that created it.
    public var id: String
    /// The owner.
    public var userId: String
    /// Display title.
    public var title: String
    /// `chat` or `compatibility`.
    public var area: String
    /// When it was created.
    public var createdAt: Date
    /// When a message was last added.
    public var updatedAt: Date
}

/// A message of a thread.
public struct ChatMessage: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "chat_message"

    /// Stable identifier, chosen by the client (a retry never duplicates a message).
    public var id: String
    /// The thread.
    public var threadId: String
    /// `user` or `assistant`.
    public var role: String
    /// The text.
    public var text: String
    /// When it was written.
    public var createdAt: Date
}

extension BackendDatabase {
    static func seedChats(_ db: Database) throws {
        let users = try User.order(Column("id")).fetchAll(db)
        for (userIndex, user) in users.enumerated() {
            for index in 0..<3 {
                let created = epoch.addingTimeInterval(Double(userIndex * 10 + index) * 3_600)
                let thread = ChatThread(
                    id: "\(user.id)-thread-\(index + 1)", userId: user.id,
                    title: index == 2 ? "Match: \(user.name) & Sam" : "Question \(index + 1)",
                    area: index == 2 ? "compatibility" : "chat", createdAt: created,
                    updatedAt: created.addingTimeInterval(180))
                try thread.insert(db)
                for message in 0..<4 {
                    try ChatMessage(
                        id: "\(thread.id)-m\(message + 1)", threadId: thread.id,
                        role: message.isMultiple(of: 2) ? "user" : "assistant",
                        text: message.isMultiple(of: 2) ? "What does week \(message + 1) hold?" : "A calm week, \(user.name).",
                        createdAt: created.addingTimeInterval(Double(message) * 60)
                    ).insert(db)
                }
            }
        }
    }

    /// A user's threads, most recently updated last; only those updated after `since` when given.
    public func threads(
        userId: String, area: String?, since: Date?, after: (updatedAt: Date, id: String)? = nil,
        limit: Int? = nil
    ) throws -> [ChatThread] {
        try queue.read { db in
            var request = ChatThread.filter(Column("userId") == userId)
            if let area { request = request.filter(Column("area") == area) }
            if let since { request = request.filter(Column("updatedAt") > since) }
            if let after {
                request = request.filter(
                    Column("updatedAt") > after.updatedAt
                        || (Column("updatedAt") == after.updatedAt && Column("id") > after.id))
            }
            request = request.order(Column("updatedAt"), Column("id"))
            if let limit { request = request.limit(limit) }
            return try request.fetchAll(db)
        }
    }

    /// One thread.
    public func thread(id: String) throws -> ChatThread? {
        try queue.read { db in try ChatThread.fetchOne(db, key: id) }
    }

    /// A thread's messages in order.
    public func messages(threadId: String) throws -> [ChatMessage] {
        try queue.read { db in
            try ChatMessage.filter(Column("threadId") == threadId).order(Column("createdAt"), Column("id")).fetchAll(db)
        }
    }

    /// The messages of these threads, in order, by thread (one query for a page of threads).
    public func messages(threadIds: [String]) throws -> [String: [ChatMessage]] {
        guard !threadIds.isEmpty else { return [:] }
        return try queue.read { db in
            Dictionary(
                grouping: try ChatMessage.filter(threadIds.contains(Column("threadId")))
                    .order(Column("threadId"), Column("createdAt"), Column("id")).fetchAll(db),
                by: \.threadId)
        }
    }

    /// Creates a thread for `userId`, or returns the existing one with this id (a retried create).
    /// - Throws: ``ChatOwnershipError`` when the id is another user's thread: nothing of it is returned.
    public func createThread(id: String, userId: String, title: String, area: String) throws -> (thread: ChatThread, created: Bool) {
        try queue.write { db in
            if let existing = try ChatThread.fetchOne(db, key: id) {
                guard existing.userId == userId else { throw ChatOwnershipError() }
                return (existing, false)
            }
            let thread = ChatThread(id: id, userId: userId, title: title, area: area, createdAt: now(), updatedAt: now())
            try thread.insert(db)
            return (thread, true)
        }
    }

    /// Adds a message to `userId`'s thread, or returns the existing one with this id **in this thread** (a
    /// retried send never duplicates). Messages are keyed by thread and id: an id used in another thread,
    /// another user's included, is a different message, and nothing of that one is ever returned.
    /// - Throws: ``ChatOwnershipError`` when the thread is not `userId`'s.
    public func addMessage(
        id: String, threadId: String, userId: String, role: String, text: String
    ) throws -> (message: ChatMessage, created: Bool) {
        try queue.write { db in
            guard try ChatThread.filter(key: threadId).filter(Column("userId") == userId).fetchCount(db) == 1 else {
                throw ChatOwnershipError()
            }
            if let existing = try ChatMessage.filter(Column("threadId") == threadId && Column("id") == id).fetchOne(db) {
                return (existing, false)
            }
            let message = ChatMessage(id: id, threadId: threadId, role: role, text: text, createdAt: now())
            try message.insert(db)
            try db.execute(sql: "UPDATE chat_thread SET updatedAt = ? WHERE id = ?", arguments: [message.createdAt, threadId])
            return (message, true)
        }
    }

    /// Messages were keyed by id alone, so an id from another thread found that thread's message: key them
    /// by thread and id.
    static func keyMessagesByThread(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE chat_message_new (id TEXT NOT NULL,
                                               threadId TEXT NOT NULL REFERENCES chat_thread(id) ON DELETE CASCADE,
                                               role TEXT NOT NULL, text TEXT NOT NULL, createdAt DATETIME NOT NULL,
                                               PRIMARY KEY (threadId, id));
                INSERT INTO chat_message_new SELECT id, threadId, role, text, createdAt FROM chat_message;
                DROP TABLE chat_message;
                ALTER TABLE chat_message_new RENAME TO chat_message;
                CREATE INDEX chat_message_by_thread ON chat_message(threadId, createdAt, id);
                """)
    }

    /// Deletes a thread and its messages.
    public func deleteThread(id: String) throws -> Bool {
        try queue.write { db in
            try ChatMessage.filter(Column("threadId") == id).deleteAll(db)
            return try ChatThread.deleteOne(db, key: id)
        }
    }
}

/// The thread belongs to another user: refused, and nothing of it is returned.
public struct ChatOwnershipError: Error, Sendable {}
