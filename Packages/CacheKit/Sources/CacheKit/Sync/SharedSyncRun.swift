import Foundation

/// One run of a ``SyncRunner`` and the callers waiting for it. Each caller waits until the run ends, its
/// own deadline passes or its task is cancelled, whichever comes first; the run goes on while one caller
/// still waits, until the latest deadline among them, and is cancelled when the last one stops waiting.
final class SharedSyncRun: Sendable {
    private struct Waiter {
        var deadline: Date?
        var continuation: CheckedContinuation<SyncReport, Never>?
        /// What the caller receives, once it stopped waiting before the run ended.
        var left: SyncReport?
        /// Whether this caller's leaving stopped the run (it then waits for the run's end, within the grace).
        var stoppedRun = false
        /// Whether the grace after the caller stopped the run has passed.
        var graceOver = false
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        var progress: SyncReport
        var report: SyncReport?
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let state: Locked<State>
    /// Whom the run is for, as its first caller saw it: a caller for another owner never joins it.
    let owner: RunOwner?
    /// How long a caller who stops the run (the last to stop waiting) waits for it to end, so its report
    /// counts the page being stored: the run's request is cancelled at once, so it ends well within this
    /// unless its transport ignores cancellation.
    private let stoppingGrace: Duration

    init(name: String, owner: RunOwner?, stoppingGrace: Duration) {
        state = Locked(State(progress: SyncReport(name: name)))
        self.owner = owner
        self.stoppingGrace = stoppingGrace
    }

    /// How many callers still wait on the run.
    var callersWaiting: Int {
        state.withLock { state in state.report == nil ? state.waiters.values.filter { $0.left == nil }.count : 0 }
    }

    /// Adds a caller who waits until `deadline` (`nil`: until the run ends); returns its number, or `nil`
    /// when the run can no longer be joined (it ended, or was stopped), checked under the same lock.
    func join(until deadline: Date?) -> Int? {
        state.withLock { state in
            guard state.report == nil, !state.stopped else { return nil }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = Waiter(deadline: deadline)
            return state.nextWaiter
        }
    }

    /// Starts the run's work (once, after the first caller joined).
    func start(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        state.withLock { $0.task = task }
    }

    /// Waits until the run's work has ended, whatever ended it: a run never overlaps the one before it.
    func ended() async {
        await state.withLock { $0.task }?.value
    }

    /// The deadline the run honours now: `nil` while a waiting caller has none, else the latest among them.
    func deadline() -> Date? {
        state.withLock { state in
            let waiting = state.waiters.values.filter { $0.left == nil }
            if waiting.isEmpty || waiting.contains(where: { $0.deadline == nil }) { return nil }
            return waiting.compactMap(\.deadline).max()
        }
    }

    /// Records what the run did so far, for a caller who stops waiting before it ends.
    func publish(_ progress: SyncReport) {
        state.withLock { $0.progress = progress }
    }

    /// The run's report for caller `waiter`: the run's own when it ended first, else what it did until the
    /// caller's deadline (``SyncOutcome/budgetExhausted``) or cancellation (``SyncOutcome/cancelled``).
    func wait(_ waiter: Int, clock: any CacheClock) async -> SyncReport {
        let deadline = state.withLock { $0.waiters[waiter]?.deadline }
        return await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask {
                    guard (try? await clock.sleep(until: deadline)) != nil else { return }
                    self.leave(waiter, outcome: .budgetExhausted)
                }
            }
            let report = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<SyncReport, Never>) in
                    let ready: SyncReport? = state.withLock { state in
                        if let report = state.report { return report }
                        guard let entry = state.waiters[waiter] else { return state.progress }
                        if let left = entry.left, !entry.stoppedRun || entry.graceOver {
                            state.waiters[waiter] = nil
                            return left
                        }
                        state.waiters[waiter]?.continuation = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                self.leave(waiter, outcome: .cancelled)
            }
            group.cancelAll()
            return report
        }
    }

    /// Caller `waiter` stops waiting with `outcome`. Another caller still waiting: this one receives the
    /// run's progress at once. The last one: the run is cancelled (its request in flight with it), and this
    /// caller receives the run's own report when it ends within the stopping grace, else its progress.
    func leave(_ waiter: Int, outcome: SyncOutcome) {
        let (continuation, report, task) = state.withLock {
            state -> (CheckedContinuation<SyncReport, Never>?, SyncReport, Task<Void, Never>?) in
            guard state.report == nil, var entry = state.waiters[waiter], entry.left == nil else {
                return (nil, state.progress, nil)
            }
            var report = state.progress
            report.outcome = outcome
            entry.left = report
            let someoneWaits = state.waiters.contains { $0.key != waiter && $0.value.left == nil }
            if !someoneWaits {
                state.stopped = true
                entry.stoppedRun = true
            }
            // The last caller keeps its continuation until the run ends or the grace passes.
            let continuation = someoneWaits ? entry.continuation : nil
            if continuation != nil { state.waiters[waiter] = nil } else { state.waiters[waiter] = entry }
            return (continuation, report, someoneWaits ? nil : state.task)
        }
        if let task {
            task.cancel()
            Task {
                try? await Task.sleep(for: self.stoppingGrace)
                self.release(waiter)
            }
        }
        continuation?.resume(returning: report)
    }

    /// The grace passed: caller `waiter`, if still waiting, receives its progress.
    private func release(_ waiter: Int) {
        let (continuation, report) = state.withLock { state -> (CheckedContinuation<SyncReport, Never>?, SyncReport?) in
            guard let entry = state.waiters[waiter], let left = entry.left else { return (nil, nil) }
            guard let continuation = entry.continuation else {
                state.waiters[waiter]?.graceOver = true
                return (nil, nil)
            }
            state.waiters[waiter] = nil
            return (continuation, left)
        }
        if let continuation, let report { continuation.resume(returning: report) }
    }

    /// Stops the run for every caller (the session ended): each receives its progress as cancelled.
    func stop() {
        let ids = state.withLock { Array($0.waiters.keys) }
        for id in ids { leave(id, outcome: .cancelled) }
        state.withLock { state in
            state.stopped = true
            return state.task
        }?.cancel()
    }

    /// The run ended with `report`: every caller still waiting receives it; one who stopped the run receives
    /// it with its own outcome unless the run completed meanwhile.
    func finish(_ report: SyncReport) {
        let resumptions = state.withLock { state in
            state.report = report
            let waiting = state.waiters.values.compactMap { waiter -> (CheckedContinuation<SyncReport, Never>, SyncReport)? in
                guard let continuation = waiter.continuation else { return nil }
                var own = report
                // A caller who left keeps its own reason, unless the run ended for a reason of its own.
                if let left = waiter.left, ![.completed, .sessionEnded].contains(report.outcome) { own.outcome = left.outcome }
                return (continuation, own)
            }
            state.waiters = [:]
            return waiting
        }
        for (continuation, report) in resumptions { continuation.resume(returning: report) }
    }
}

/// A source's owner, type-erased so a runner can compare the caller's with its run's. Made only from a
/// `Sendable & Hashable` owner, so sharing it is safe.
struct RunOwner: @unchecked Sendable, Hashable {
    let value: AnyHashable

    init<Owner: Sendable & Hashable>(_ owner: Owner) {
        value = AnyHashable(owner)
    }
}
