import Foundation
import GRDB

/// What ``UserDatabases`` tells an observation of one user's file: the file is open (at once, or when a
/// first write creates it), or the files were cleared.
protocol UserDatabaseWatcher: AnyObject, Sendable {
    /// Whose file it reads.
    var userId: String { get }
    /// The user's file is open: follow its commits and read the value.
    func attach(_ database: UserDatabase)
    /// The file is about to be deleted (logout, account deletion): nothing more is read or yielded. Called
    /// under the files' lock, so it never calls out.
    func retire()
    /// The file was deleted: yield the empty value and finish. Called once the files' lock is released
    /// (finishing runs the stream's termination handler, which takes that lock).
    func announceCleared()
}

/// One observation of a value read from a user's file: the value now, then again after every commit that
/// touches the tables it reads, each read taken after the commit (and whatever the commit's own callbacks
/// did, such as a search index's update) and yielded only when it differs from the last.
final class DatabaseWatcher<Value: Sendable & Equatable>: UserDatabaseWatcher {
    private struct State {
        var database: UserDatabase?
        var observer: CommitObserver?
        var last: Value?
        var finished = false
    }

    let userId: String
    private let tables: Set<String>
    private let empty: Value
    private let read: @Sendable (Database) throws -> Value
    private let output: AsyncThrowingStream<Value, any Error>.Continuation
    /// Reads asked for; at most one waits, so a burst of commits costs one read.
    private let triggers: AsyncStream<Void>.Continuation
    private let state = Locked(State())

    init(
        userId: String, tables: [String], empty: Value, read: @escaping @Sendable (Database) throws -> Value,
        output: AsyncThrowingStream<Value, any Error>.Continuation
    ) {
        self.userId = userId
        self.tables = Set(tables.map { $0.lowercased() })
        self.empty = empty
        self.read = read
        self.output = output
        let (requests, triggers) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.triggers = triggers
        Task { [weak self] in
            for await _ in requests {
                guard let self else { return }
                await self.readAndPublish()
            }
        }
    }

    /// Before the file exists the value is the empty one (unless a first write opened it meanwhile).
    func start(with database: UserDatabase?) {
        if let database { return attach(database) }
        state.withLock { state in
            guard !state.finished, state.database == nil, state.last == nil else { return }
            state.last = empty
            output.yield(empty)
        }
    }

    func attach(_ database: UserDatabase) {
        let fresh = state.withLock { state in
            guard !state.finished, state.database?.queue !== database.queue else { return false }
            state.database = database
            return true
        }
        guard fresh else { return }
        let triggers = self.triggers
        let observer = CommitObserver(tables: tables) { triggers.yield() }
        // Added on the file's queue, after a write in progress; refused once a clearing closed the file.
        guard (try? database.writeWithoutTransaction { db in db.add(transactionObserver: observer, extent: .observerLifetime) }) != nil
        else {
            return
        }
        let kept = state.withLock { state in
            guard !state.finished, state.database?.queue === database.queue else { return false }
            state.observer = observer
            return true
        }
        if !kept { observer.cancel() }
        triggers.yield()
    }

    func retire() {
        let observer = state.withLock { state -> CommitObserver? in
            state.finished = true
            state.database = nil
            defer { state.observer = nil }
            return state.observer
        }
        observer?.cancel()
        triggers.finish()
    }

    func announceCleared() {
        if state.withLock({ $0.last }) != empty { output.yield(empty) }
        output.finish()
    }

    private func readAndPublish() async {
        guard let database = state.withLock({ $0.database }) else { return }
        do {
            publish(try await database.read(read))
        } catch {
            // A clearing closed the file during the read: the clearing has said so. Otherwise the read failed.
            let failed = state.withLock { state in
                guard !state.finished, state.database?.queue === database.queue else { return false }
                state.finished = true
                return true
            }
            // Finishing runs the stream's termination handler, which retires the watcher.
            if failed { output.finish(throwing: error) }
        }
    }

    private func publish(_ value: Value) {
        state.withLock { state in
            guard !state.finished, state.last != value else { return }
            state.last = value
            output.yield(value)
        }
    }
}

/// Tells when a transaction that changed one of `tables` (any table when empty) committed: GRDB's
/// transaction observation, the commit notification `ValueObservation` is built on. It runs on the file's
/// queue during the commit, and only asks for a read; the read runs after the commit and its other
/// callbacks.
final class CommitObserver: TransactionObserver, Sendable {
    private let tables: Set<String>
    private let onCommit: @Sendable () -> Void
    /// Whether the transaction going changed a table observed; whether the observer was cancelled.
    private let state = Locked((changed: false, cancelled: false))

    init(tables: Set<String>, onCommit: @escaping @Sendable () -> Void) {
        self.tables = tables
        self.onCommit = onCommit
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        tables.isEmpty || tables.contains(eventKind.tableName.lowercased())
    }

    func databaseDidChange(with event: DatabaseEvent) {
        state.withLock { $0.changed = true }
    }

    func databaseDidCommit(_ db: Database) {
        let (changed, cancelled) = state.withLock { state in
            defer { state.changed = false }
            return (state.changed, state.cancelled)
        }
        if changed, !cancelled { onCommit() }
    }

    func databaseDidRollback(_ db: Database) {
        state.withLock { $0.changed = false }
    }
}
