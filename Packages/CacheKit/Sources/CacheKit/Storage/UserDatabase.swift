import Foundation
import GRDB

/// One user's open file, as ``UserDatabases`` hands it out: GRDB's reads and writes on its one connection,
/// each refused with ``CacheError/cleared`` once a clearing (a logout, an account deletion) closed the file
/// after it was handed out. A closed connection is checked for inside the connection's queue, before SQLite
/// is touched: a read racing a logout fails cleanly, never on a closed handle.
///
/// Reads run on the file's one connection, serialized with its writes, so a read of several statements sees
/// one state of the file without a transaction of its own.
public struct UserDatabase: Sendable {
    let queue: DatabaseQueue

    /// Reads the file.
    /// - Throws: ``CacheError/cleared`` when the file was closed by a clearing; the read's own errors.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.unsafeRead { db in
            try Self.requireOpen(db)
            return try body(db)
        }
    }

    /// Reads the file without blocking the caller's thread.
    /// - Throws: ``CacheError/cleared`` when the file was closed by a clearing; the read's own errors.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.unsafeRead { db in
            try Self.requireOpen(db)
            return try body(db)
        }
    }

    /// Writes in one transaction (committed when `body` returns, rolled back when it throws).
    /// - Throws: ``CacheError/cleared`` when the file was closed by a clearing; the write's own errors.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction { db in try Self.transaction(db, body) }
    }

    /// Writes in one transaction without blocking the caller's thread.
    /// - Throws: ``CacheError/cleared`` when the file was closed by a clearing; the write's own errors.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.writeWithoutTransaction { db in try Self.transaction(db, body) }
    }

    /// Runs `body` outside a transaction (a WAL checkpoint, a `VACUUM`).
    /// - Throws: ``CacheError/cleared`` when the file was closed by a clearing; `body`'s own errors.
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction { db in
            try Self.requireOpen(db)
            return try body(db)
        }
    }

    private static func transaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try requireOpen(db)
        var result: Result<T, any Error>?
        try db.inTransaction {
            result = Result { try body(db) }
            if case .failure = result { return .rollback }
            return .commit
        }
        guard let result else { throw CacheError.cleared }
        return try result.get()
    }

    /// Throws when a clearing closed the connection.
    static func requireOpen(_ db: Database) throws {
        guard db.sqliteConnection != nil else { throw CacheError.cleared }
    }
}
