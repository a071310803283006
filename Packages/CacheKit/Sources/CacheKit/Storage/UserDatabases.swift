import Foundation
import GRDB

/// One SQLite file per user in a folder, for a kit that keeps records of its own (a chat history, an
/// address book): each file named by a keyed hash of the user id (this installation's key, kept in the
/// folder, so a list of likely user ids says nothing of whose file is whose), protected, migrated when
/// opened, and deleted whole.
///
/// What holds at the edges in time:
/// - **One connection per file**, opened once under a lock (never two racing to create and migrate the
///   same file), in WAL mode with a busy timeout: a screen reading while a sync writes waits for the
///   page's transaction and never sees half of it.
/// - **Nothing recreates a file after a clearing.** Writes go through a ``Lease`` taken before the work
///   began (a sync's run, an edit); ``removeAll()`` and ``erase(userId:)`` start a new generation, and a
///   lease of an earlier one is refused with ``CacheError/cleared``. Reads never create a file.
///
/// ```swift
/// let files = UserDatabases(directory: caches.appendingPathComponent("notes"), prefix: "notes", migrator: NotesStore.migrator)
/// let lease = files.lease(for: userId)                      // when the work begins
/// try await files.database(for: lease).write { db in        // refused once a logout cleared the files
///     try NoteRow(note).save(db)
/// }
/// let stored = try await files.existingDatabase(for: userId)?.read { db in try NoteRow.fetchCount(db) }
/// try files.erase(userId: userId)                           // account deletion
/// try files.removeAll()                                     // logout
/// ```
public final class UserDatabases: Sendable {
    /// The right to write one user's file, taken before the work begins; refused once the files were
    /// cleared since. Two leases are equal when they are for the same user and generation, so a sync
    /// compares the one it started with to the one it would take now.
    public struct Lease: Sendable, Hashable {
        /// Whose file.
        public let userId: String
        let generation: Int
    }

    private struct State {
        var open: [String: UserDatabase] = [:]
        var secret: InstallSecret?
        var generation = 0
        var watchers: [ObjectIdentifier: any UserDatabaseWatcher] = [:]
    }

    /// The folder of the files.
    public let directory: URL
    private let prefix: String
    private let migrator: DatabaseMigrator
    private let state = Locked(State())

    /// Files in `directory` (created on first use).
    ///
    /// - Parameters:
    ///   - directory: the folder, the kit's own: under the environment's `dataDirectory` for data the system must
    ///     not purge (an address book), or under its caches for what the server can give again.
    ///   - prefix: the start of every file name (`history`, `contacts`).
    ///   - migrator: every schema version, applied when a file opens.
    public init(directory: URL, prefix: String, migrator: DatabaseMigrator) {
        self.directory = directory
        self.prefix = prefix
        self.migrator = migrator
    }

    /// The user's file (`<prefix>-<keyed hash>.sqlite`).
    public func fileURL(for userId: String) -> URL {
        state.withLock { fileURL(for: userId, in: &$0) }
    }

    /// A lease on the user's file as of now.
    public func lease(for userId: String) -> Lease {
        Lease(userId: userId, generation: state.withLock { $0.generation })
    }

    /// The lease's file, created, protected and migrated on first use.
    /// - Throws: ``CacheError/cleared`` when the files were cleared since the lease was taken; GRDB's
    ///   error when the file cannot be created, opened or migrated.
    public func database(for lease: Lease) throws -> UserDatabase {
        let (database, watchers) = try state.withLock { state in
            guard state.generation == lease.generation,
                let opened = try open(lease.userId, creating: true, in: &state)
            else { throw CacheError.cleared }
            return opened
        }
        for watcher in watchers { watcher.attach(database) }
        return database
    }

    /// The user's database if its file exists (opened and migrated on first use), else `nil`: a read
    /// never creates a file.
    /// - Throws: when the file cannot be opened or migrated.
    public func existingDatabase(for userId: String) throws -> UserDatabase? {
        guard let (database, watchers) = try state.withLock({ state in try open(userId, creating: false, in: &state) }) else { return nil }
        for watcher in watchers { watcher.attach(database) }
        return database
    }

    /// The databases open now, for statistics.
    public var openDatabases: [UserDatabase] {
        state.withLock { Array($0.open.values) }
    }

    /// Closes and deletes the user's file (account deletion), and the key naming the files once no file
    /// of any user is left. Leases taken before are refused from now on.
    public func erase(userId: String) throws {
        var retired: [any UserDatabaseWatcher] = []
        defer { for watcher in retired { watcher.announceCleared() } }
        try state.withLock { state in
            state.generation += 1
            for (key, watcher) in state.watchers where watcher.userId == userId {
                state.watchers.removeValue(forKey: key)
                watcher.retire()
                retired.append(watcher)
            }
            try state.open.removeValue(forKey: userId)?.queue.close()
            guard FileManager.default.fileExists(atPath: directory.path) else { return }
            let url = fileURL(for: userId, in: &state)
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let file = URL(fileURLWithPath: url.path + suffix)
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            }
            let others = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("\(prefix)-") }
            if others.isEmpty {
                state.secret = nil
                try InstallSecret.delete(in: directory)
            }
        }
    }

    /// Closes every file and deletes the folder (logout). Leases taken before are refused from now on.
    public func removeAll() throws {
        var retired: [any UserDatabaseWatcher] = []
        defer { for watcher in retired { watcher.announceCleared() } }
        try state.withLock { state in
            state.generation += 1
            retired = Array(state.watchers.values)
            state.watchers = [:]
            for watcher in retired { watcher.retire() }
            let databases = Array(state.open.values)
            state.open = [:]
            state.secret = nil
            for database in databases { try database.queue.close() }
            guard FileManager.default.fileExists(atPath: directory.path) else { return }
            try FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Observing

    /// The value `read` reads from the user's file, now and after every change to it: a screen's live query
    /// (GRDB's `ValueObservation`, Apollo's `watch`, SwiftData's `@Query`). Take the `lease` when the screen
    /// starts, for the signed-in user: an observation begun before a clearing it did not see ends at once.
    ///
    /// - Before the user's file exists it yields `empty`, and the value read once a first write creates it.
    /// - After each commit that touches `tables` (every table when empty) it reads again, after the
    ///   commit and everything it did (a `SearchIndex` updated by the same transaction included), and yields
    ///   the value when it differs from the last. A burst of commits may yield only the latest value.
    /// - A clearing of the file (logout, account deletion) yields `empty` and finishes the sequence: an
    ///   observation never outlives its user's data, and never sees another user's.
    /// - A read that fails finishes the sequence with its error. Dropping the sequence, or cancelling the
    ///   task iterating it, stops the observation.
    ///
    /// ```swift
    /// let notes = files.observe(lease: files.lease(for: user), tables: ["note"], empty: []) { db in
    ///     try NoteRow.order(Column("title")).fetchAll(db).map(\.note)
    /// }
    /// for try await page in notes { render(page) }
    /// ```
    public func observe<Value: Sendable & Equatable>(
        lease: Lease, tables: [String] = [], empty: Value, _ read: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(
            of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let userId = lease.userId
        let watcher = DatabaseWatcher(userId: userId, tables: tables, empty: empty, read: read, output: output)
        let key = ObjectIdentifier(watcher)
        // A lease taken before a clearing: the user's data is gone already, and the observation with it.
        let current = state.withLock { state in
            guard state.generation == lease.generation else { return false }
            state.watchers[key] = watcher
            return true
        }
        guard current else {
            watcher.retire()
            watcher.announceCleared()
            return stream
        }
        output.onTermination = { [weak self] _ in
            watcher.retire()
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: key) }
        }
        do {
            watcher.start(with: try existingDatabase(for: userId))
        } catch {
            output.finish(throwing: error)
        }
        return stream
    }

    /// Observations running now (for tests of their ending).
    package var observationCount: Int {
        state.withLock { $0.watchers.count }
    }

    // MARK: Steps (under the lock)

    private func fileURL(for userId: String, in state: inout State) -> URL {
        let key = state.secret ?? InstallSecret(directory: directory)
        state.secret = key
        return directory.appendingPathComponent("\(prefix)-\(key.fileNameHash(userId)).sqlite", isDirectory: false)
    }

    /// The user's database, and the observations to attach to it when this call opened it.
    private func open(_ userId: String, creating: Bool, in state: inout State) throws -> (UserDatabase, [any UserDatabaseWatcher])? {
        if let database = state.open[userId] { return (database, []) }
        if !creating {
            // Without its key the folder names no file yet; asking for the name would create the key.
            guard state.secret != nil || InstallSecret.exists(in: directory) else { return nil }
            guard FileManager.default.fileExists(atPath: fileURL(for: userId, in: &state).path) else { return nil }
        }
        try ProtectedFiles.createDirectory(directory)
        let url = fileURL(for: userId, in: &state)
        let queue = try CacheDatabase.open(url, label: "CacheKit.UserDatabases.\(prefix)", migrator: migrator)
        try ProtectedFiles.protectFile(url)
        let database = UserDatabase(queue: queue)
        state.open[userId] = database
        return (database, state.watchers.values.filter { $0.userId == userId })
    }
}
