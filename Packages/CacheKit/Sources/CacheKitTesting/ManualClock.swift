import CacheKit
import Foundation

/// A clock that moves only when a test moves it, so expiry is tested without sleeping. A task waiting on
/// it (``sleep(until:)``, a sync's deadline) wakes when the test moves it past the waited date.
public final class ManualClock: CacheClock {
    private struct State {
        var now: Date
        var sleepers: [Int: (until: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeper = 0
    }
    private let state: Locked<State>

    /// Creates a clock reading `now` (by default 2026-01-15 12:00:00 UTC).
    public init(now: Date = Date(timeIntervalSince1970: 1_768_478_400)) {
        state = Locked(State(now: now))
    }

    /// The time the test set.
    public func now() -> Date {
        state.withLock { $0.now }
    }

    /// Moves the clock forward (or back, with a negative interval), waking the tasks it passed.
    public func advance(by seconds: TimeInterval) {
        move { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`, waking the tasks it passed.
    public func set(to date: Date) {
        move { $0 = date }
    }

    /// How many tasks wait on the clock now: a test moves it once they are all waiting.
    public var sleepingTasks: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Returns once the test moved the clock to `date` or later.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until date: Date) async throws {
        let id = state.withLock { state in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.now >= date || Task.isCancelled { return true }
                    state.sleepers[id] = (date, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    private func move(_ change: (inout Date) -> Void) {
        let woken = state.withLock { state in
            change(&state.now)
            let now = state.now
            let due = state.sleepers.filter { $0.value.until <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }
}
