import Foundation
import GRDB
import Logging

// The database file: opened lazily, recreated when it cannot be read, discarded with its WAL.
extension DiskStore {
    /// Opens the file now if it exists and is not open yet, so that the first read finds it open: an app's launch
    /// calls it beside its other work. Creates nothing; a file that does not open is treated as a read would treat it
    /// (logged, started afresh).
    public func prepare() {
        _ = try? database(creating: false)
    }

    /// The open database, opening (and with `creating`, creating) it on first use. A file that is not
    /// a database, or whose schema cannot be migrated, is discarded and created afresh. The opening runs under
    /// ``fileLock``, as a clearing's deletion does, so nothing opens a file a clearing is moving away.
    func database(creating: Bool) throws -> DatabaseQueue? {
        if let connection = state.withLock({ $0.connection }) { return connection }
        return try fileLock.withLock { _ in
            if let connection = state.withLock({ $0.connection }) { return connection }
            let url = configuration.databaseURL
            guard creating || FileManager.default.fileExists(atPath: url.path) else { return nil }
            try ProtectedFiles.createDirectory(configuration.directory)
            let opened: OpenedDatabase
            do {
                opened = try openDatabase(at: url)
            } catch {
                logger.error("Cache database unreadable; starting afresh", metadata: ["error": "\(error)"])
                try deleteDatabaseFiles()
                opened = try openDatabase(at: url)
            }
            try ProtectedFiles.protectFile(url)
            state.withLock { state in
                state.totalBytes = opened.totalBytes
                state.nextAccess = opened.lastAccess
                state.connection = opened.connection
            }
            return opened.connection
        }
    }

    private struct OpenedDatabase {
        var connection: DatabaseQueue
        var totalBytes: Int
        var lastAccess: Int64
    }

    /// Opens, migrates and sums the database; closes it again if any step fails.
    private func openDatabase(at url: URL) throws -> OpenedDatabase {
        let connection = try CacheDatabase.open(url, label: "CacheKit.DiskStore", migrator: Self.migrator)
        do {
            return try connection.inDatabase { db in
                let row = try Row.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0), COALESCE(MAX(access_seq), 0) FROM entry")
                return OpenedDatabase(
                    connection: connection, totalBytes: try row?.decode(Int.self, atIndex: 0) ?? 0,
                    lastAccess: try row?.decode(Int64.self, atIndex: 1) ?? 0)
            }
        } catch {
            try? connection.close()
            throw error
        }
    }

    /// Drops a corrupt entry, or the whole file when SQLite says it is damaged; logs any other failure.
    func handleReadFailure(_ error: any Error, key: String) {
        switch error {
        case is DiskStoreCorruption, is RowDecodingError:
            logger.warning("Dropped a corrupt cache entry", metadata: ["key": "\(key.redacted)", "error": "\(error)"])
            _ = try? remove(key)
        case let error as DatabaseError where error.isCorruption:
            logger.error("Cache database is damaged; discarding it", metadata: ["error": "\(error)"])
            discardDatabase()
        default:
            logger.error("Cache read failed", metadata: ["key": "\(key.redacted)", "error": "\(error)"])
        }
    }

    /// Removes every entry by deleting the database files; the next write creates a new one.
    public func removeAll() throws {
        changes?.storeWillChange()
        defer { changes?.storeDidChange() }
        // Under the file lock: a read or a write beside the clearing never opens the file before it is moved away
        // (its connection would outlive the clearing and read what was cleared).
        try fileLock.withLock { _ in try closeAndDelete() }
    }

    /// Forgets the connection, closes it and moves the files away; called under ``fileLock``. Closing waits for the
    /// operations running on the connection, which take the state lock, never the file lock.
    private func closeAndDelete() throws {
        let connection = state.withLock { state in
            defer { state = State() }
            return state.connection
        }
        do {
            try connection?.close()
        } catch {
            logger.warning("Cache database did not close cleanly before removal", metadata: ["error": "\(error)"])
        }
        try deleteDatabaseFiles()
    }

    /// Forgets the open database and deletes its files after damage was found.
    func discardDatabase() {
        do {
            try removeAll()
        } catch {
            logger.error("Could not delete the damaged cache database", metadata: ["error": "\(error)"])
        }
    }

    /// Moves the database and its WAL out of the store's path at once; they are deleted in the background
    /// (``DiscardedFiles``).
    func deleteDatabaseFiles() throws {
        let base = configuration.databaseURL.path
        try DiscardedFiles.discard([base, base + "-wal", base + "-shm"], in: configuration.directory)
    }
}

extension DatabaseError {
    /// Whether SQLite says the file is damaged or not a database.
    var isCorruption: Bool {
        resultCode == .SQLITE_CORRUPT || resultCode == .SQLITE_NOTADB
    }
}
