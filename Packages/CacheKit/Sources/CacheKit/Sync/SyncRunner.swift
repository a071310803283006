import Foundation
import Logging

/// Runs one ``SyncSource``: decides full or incremental from its checkpoint
/// (``SyncCheckpoint/nextRequest(after:now:maximumOfflineDuration:)``), fetches and stores page after
/// page, and stops cleanly at a deadline, on cancellation or when the session ends, keeping every page
/// stored.
///
/// A kit makes one runner per source, registers it (`KitRegistry.addSync(_:)`) and uses it for its own
/// "sync now"; ``BackgroundSync`` runs the same runner. What holds at the edges in time:
/// - **Runs never overlap.** A run asked for while one is going for the same owner joins it; one for
///   another owner (the signed-in user changed) never joins the old run, which stops at its next step,
///   and starts after it; a run asked for after the last caller of the previous one stopped waiting starts
///   only once that one's work has ended.
/// - **Each caller waits on its own terms.** A caller stops waiting at its own deadline or when its task
///   is cancelled, and receives what the run did so far; the run goes on while another caller waits, until
///   the latest of their deadlines, and is cancelled (the request in flight with it) when none waits.
/// - **The budget is a bound.** At the deadline the request in flight is cancelled: a run against a server
///   that never answers ends at its deadline, not at the request's timeout.
/// - **A run belongs to a session.** Before each request and each store it asks the source for its owner
///   again; when that changed (another user, a logout, a clearing) it stops, stores nothing more and ends
///   ``SyncOutcome/sessionEnded``.
/// - **A rejected changes token** (``SyncError/changesTokenRejected``) turns the run into one full sync.
public final class SyncRunner: Sendable {
    /// The source's name.
    public let name: String
    private let body: @Sendable (SharedSyncRun) async -> SyncReport
    private let ownerNow: @Sendable () async -> RunOwner?
    private let clock: any CacheClock
    private let current = Locked<SharedSyncRun?>(nil)
    private let stoppingGrace: Duration
    private let status = SyncStatus()
    private let lastRun = Locked<SyncReport?>(nil)
    private let lastCompletedNow: @Sendable () async -> Date?

    /// A runner for `source`.
    ///
    /// - Parameters:
    ///   - source: what fetches and stores the pages.
    ///   - clock: the source of "now" for checkpoints, durations and deadlines, and what deadlines wait on.
    ///   - logger: where failed runs are reported.
    ///   - stoppingGrace: how long the last caller to stop waiting (at its deadline, or cancelled) waits for the
    ///     cancelled run to end, so its report counts the page being stored; past it, it receives what the run
    ///     had done. Real time: a bound on waiting for a transport that ignores cancellation.
    public init<Source: SyncSource>(
        _ source: Source, clock: any CacheClock = SystemClock(), logger: Logger = Logger(label: "CacheKit.Sync"),
        stoppingGrace: Duration = .seconds(1)
    ) {
        name = source.name
        self.clock = clock
        self.stoppingGrace = stoppingGrace
        let status = self.status
        let lastRun = self.lastRun
        body = { run in
            let report = await Self.run(source, in: run, clock: clock, logger: logger, status: status)
            lastRun.withLock { $0 = report }
            return report
        }
        ownerNow = { (try? await source.owner()).map { RunOwner($0) } }
        lastCompletedNow = {
            guard let owner = try? await source.owner() else { return nil }
            return (try? await source.checkpoint(for: owner))??.lastCompletedAt
        }
    }

    /// Where the sync stands now (see ``states()``).
    public var state: SyncState { status.value }

    /// The report of the last run that ended, for a dashboard; `nil` before the first.
    public var lastReport: SyncReport? { lastRun.withLock { $0 } }

    /// Where the sync stands, now and after each change: a run starting, each page stored, its end (idle,
    /// or failed with why). ``SyncState/lastCompletedAt`` is the signed-in user's, read from the
    /// checkpoint when first asked; a clearing resets it. Ends when the caller drops it.
    public func states() -> AsyncStream<SyncState> {
        let states = status.follow()
        if !status.isLoaded {
            let generation = status.generation
            Task { [status, lastCompletedNow] in
                let completed = await lastCompletedNow()
                // Dropped when a clearing or another user's run came meanwhile: never a signed-out user's date.
                status.update(since: generation) { state in if state.lastCompletedAt == nil { state.lastCompletedAt = completed } }
            }
        }
        return states
    }

    /// Runs the sync, or joins the run going, until its last page, `deadline` (by the runner's clock) or
    /// the task's cancellation, whichever comes first. Never throws: the report says how it ended, and its
    /// ``SyncReport/error`` why it failed.
    ///
    /// - Parameter deadline: when to stop waiting; `nil` for no limit. A run shared by several callers
    ///   goes on until the latest of their deadlines.
    public func run(until deadline: Date? = nil) async -> SyncReport {
        let owner = await ownerNow()
        let (run, waiter) = current.withLock { current -> (SharedSyncRun, Int) in
            if let run = current, run.owner == owner, let waiter = run.join(until: deadline) { return (run, waiter) }
            // A run going for another owner (a user who signed out) is not joined: it stops at its own next
            // step, its owner having changed, and this one starts once it has ended.
            let previous = current
            let run = SharedSyncRun(name: name, owner: owner, stoppingGrace: stoppingGrace)
            let waiter = run.join(until: deadline) ?? 0
            current = run
            run.start { [body] in
                await previous?.ended()
                run.finish(await body(run))
            }
            return (run, waiter)
        }
        return await run.wait(waiter, clock: clock)
    }

    /// Runs the sync (or joins the run going) when the signed-in user has none completed yet: the app's first
    /// launch after a sign-in, or a first sync that was cut. Sends nothing when one has completed, or when
    /// nobody is signed in.
    /// - Parameter deadline: as for ``run(until:)``.
    /// - Returns: the run's report; `nil` when no run was needed.
    public func runIfNeverCompleted(until deadline: Date? = nil) async -> SyncReport? {
        guard await ownerNow() != nil, await lastCompletedNow() == nil else { return nil }
        return await run(until: deadline)
    }

    /// How many callers wait on the run going now (0 when none goes).
    public var callersWaiting: Int {
        current.withLock { $0 }?.callersWaiting ?? 0
    }

    /// Stops the run going, for every caller (the session ended): each receives what it did so far as
    /// ``SyncOutcome/cancelled``, and the request in flight is cancelled.
    public func cancel() {
        current.withLock { $0 }?.stop()
        status.reset()
    }

    private static func run<Source: SyncSource>(
        _ source: Source, in run: SharedSyncRun, clock: any CacheClock, logger: Logger, status: SyncStatus
    ) async -> SyncReport {
        let started = clock.now()
        let generation = status.generation
        var report = SyncReport(name: source.name)
        var owner: Source.Owner?
        var lastCompleted: Date?
        do {
            let runOwner = try await source.owner()
            owner = runOwner
            var checkpoint = try await source.checkpoint(for: runOwner)
            lastCompleted = checkpoint?.lastCompletedAt
            var request = SyncCheckpoint.nextRequest(
                after: checkpoint, now: started, maximumOfflineDuration: source.maximumOfflineDuration)
            report.mode = request.mode
            report.resumed = request.pageCursor != nil
            run.publish(report)
            status.update(since: generation, loaded: true) { [lastCompleted] state in
                state = SyncState(activity: .running(pages: 0, items: 0, total: nil), lastCompletedAt: lastCompleted)
            }
            while true {
                if Task.isCancelled {
                    report.outcome = .cancelled
                    break
                }
                if let deadline = run.deadline(), clock.now() >= deadline {
                    report.outcome = .budgetExhausted
                    break
                }
                guard await isOwner(runOwner, of: source) else {
                    report.outcome = .sessionEnded
                    break
                }
                let page: SyncPage<Source.Content>
                do {
                    page = try await source.fetchPage(request, for: runOwner)
                } catch SyncError.changesTokenRejected where request.mode == .incremental && !report.fellBackToFullSync {
                    logger.info("The changes token was rejected: one full sync instead", metadata: ["sync": "\(source.name)"])
                    report.fellBackToFullSync = true
                    report.mode = .full
                    request = SyncPageRequest(mode: .full, pageCursor: nil, changesToken: nil)
                    continue
                }
                guard await isOwner(runOwner, of: source) else {
                    report.outcome = .sessionEnded
                    break
                }
                let next = (checkpoint ?? SyncCheckpoint(mode: request.mode)).advanced(by: page, for: request, at: clock.now())
                // A page fetched is stored even when the deadline passes meanwhile (its request is over; storing
                // takes milliseconds), so the next run does not fetch it again. A clearing still refuses it.
                try await Task { try await source.store(page, checkpoint: next, for: runOwner) }.value
                checkpoint = next
                lastCompleted = next.lastCompletedAt
                report.pages += 1
                report.requests += page.requests
                report.counts.merge(page.counts, uniquingKeysWith: +)
                run.publish(report)
                status.update(since: generation) { [report] in
                    $0.activity = .running(pages: report.pages, items: report.items, total: page.total)
                }
                guard let cursor = page.nextPageCursor else {
                    report.outcome = .completed
                    break
                }
                request.pageCursor = cursor
            }
        } catch {
            if let owner, await !isOwner(owner, of: source) {
                report.outcome = .sessionEnded
            } else if Task.isCancelled {
                report.outcome = .cancelled
            } else {
                report.outcome = .failed
                report.error = error
                logger.info("Sync stopped by an error", metadata: ["sync": "\(source.name)", "error": "\(error)"])
            }
        }
        report.duration = clock.now().timeIntervalSince(started)
        if report.outcome == .sessionEnded {
            status.reset()
        } else {
            status.update(since: generation) { [report, lastCompleted] state in
                switch report.outcome {
                case .completed: state = SyncState(activity: .idle, lastCompletedAt: lastCompleted)
                case .failed: state.activity = .failed(SyncFailure(report.error ?? SyncError.sessionEnded))
                case .cancelled, .budgetExhausted, .sessionEnded: state.activity = .idle
                }
            }
        }
        return report
    }

    /// Whether `owner` is still whom the source syncs for (nobody signed in: no).
    private static func isOwner<Source: SyncSource>(_ owner: Source.Owner, of source: Source) async -> Bool {
        (try? await source.owner()) == owner
    }
}
