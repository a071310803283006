import CacheKit

/// A gate that suspends tasks until a test opens it, to hold a loader "in flight" while other calls
/// arrive. Once open, it stays open.
public final class AsyncGate: Sendable {
    private enum State {
        case closed([CheckedContinuation<Void, Never>])
        case open
    }

    private let state = Locked(State.closed([]))

    /// Creates a closed gate.
    public init() {}

    /// Suspends until the gate is open.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                switch state {
                case .open:
                    return true
                case .closed(var waiters):
                    waiters.append(continuation)
                    state = .closed(waiters)
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// How many tasks wait at the gate now.
    public var waiting: Int {
        state.withLock { state in
            if case .closed(let waiters) = state { return waiters.count }
            return 0
        }
    }

    /// Opens the gate and resumes everyone waiting.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = .open }
            if case .closed(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }
}
