import Foundation

/// Where a sync stands, for a screen to show ("Syncing 1,500 of 10,000", "Last synced 2 h ago", "Your
/// contacts are still arriving"): follow it with ``SyncRunner/states()``.
public struct SyncState: Sendable, Hashable {
    /// What the runner is doing.
    public enum Activity: Sendable, Hashable {
        /// No run is going (none yet, or the last one ended without an error).
        case idle
        /// A run is going: its pages stored so far, the records they held, and how many records the whole
        /// run brings when the server says so.
        case running(pages: Int, items: Int, total: Int?)
        /// The last run stopped on an error (the next run clears it).
        case failed(SyncFailure)
    }

    /// What the runner is doing.
    public var activity: Activity = .idle
    /// When the last run completed, for the signed-in user (kept by the sync's checkpoint, so it survives
    /// a relaunch); `nil` while their first sync has not finished.
    public var lastCompletedAt: Date?

    /// Whether the signed-in user's first sync has finished: until then a screen says the data is still
    /// arriving rather than showing an empty list as if it were all.
    public var isFirstSyncFinished: Bool { lastCompletedAt != nil }

    /// Whether a run is going.
    public var isRunning: Bool {
        if case .running = activity { true } else { false }
    }

    /// A state.
    public init(activity: Activity = .idle, lastCompletedAt: Date? = nil) {
        self.activity = activity
        self.lastCompletedAt = lastCompletedAt
    }
}

/// Why the last run failed, as a screen shows it: its sentence (``errorDescription``) and its log form
/// (``description``), neither with a server's message, a body or an address beyond the error's own
/// redacted form.
public struct SyncFailure: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// A sentence a screen can show: the error's own when it has one.
    public var errorDescription: String?
    /// The error's log form.
    public var description: String

    /// The failure of `error`.
    public init(_ error: any Error) {
        errorDescription =
            (error as? any LocalizedError)?.errorDescription ?? "Your data could not be brought up to date. It will be tried again."
        description = "\(error)"
    }
}

/// The runner's state and the screens following it.
final class SyncStatus: Sendable {
    private struct State {
        var value = SyncState()
        /// Whether `value.lastCompletedAt` was read from the signed-in user's checkpoint.
        var loaded = false
        /// Moved on by each reset (a clearing, another user): an update begun before it is dropped.
        var generation = 0
        var followers: [UUID: AsyncStream<SyncState>.Continuation] = [:]
    }

    private let state = Locked(State())

    var value: SyncState { state.withLock { $0.value } }
    var isLoaded: Bool { state.withLock { $0.loaded } }
    var generation: Int { state.withLock { $0.generation } }

    /// Forgets the state (a clearing, the session ended): updates begun before are dropped.
    func reset() {
        state.withLock { state in
            state.generation += 1
            state.loaded = false
            Self.set(SyncState(), in: &state)
        }
    }

    /// Changes the state, unless a reset came since `generation` (when given), and tells the followers
    /// when it changed.
    func update(since generation: Int? = nil, loaded: Bool? = nil, _ change: (inout SyncState) -> Void) {
        state.withLock { state in
            if let generation, generation != state.generation { return }
            var value = state.value
            change(&value)
            if let loaded { state.loaded = loaded }
            Self.set(value, in: &state)
        }
    }

    /// Sets the state and tells the followers when it changed.
    private static func set(_ value: SyncState, in state: inout State) {
        guard state.value != value else { return }
        state.value = value
        for follower in state.followers.values { follower.yield(value) }
    }

    /// The state now, then each change.
    func follow() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncState.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        state.withLock { state in
            state.followers[id] = continuation
            continuation.yield(state.value)
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.followers.removeValue(forKey: id) } }
        return stream
    }
}
