import Foundation
import Logging

/// Runs one ``SyncSource``: decides full or incremental from its checkpoint
/// (``SyncCheckpoint/nextRequest(after:now:maximumOfflineDuration:)``), fetches and stores page after
/// page, and stops cleanly at a deadline or on cancellation, keeping every page stored.
///
/// A kit makes one runner per source, registers it (`KitRegistry.addSync(_:)`) and uses it for its own
/// "sync now"; ``BackgroundSync`` runs the same runner. Runs of one runner never overlap: a run asked
/// for while one is going joins it and receives its report.
public final class SyncRunner: Sendable {
    /// The source's name.
    public let name: String
    private let body: @Sendable (Date?) async -> SyncReport
    private let current = Locked<(id: Int, task: Task<SyncReport, Never>)?>(nil)
    private let runs = Locked(0)

    /// A runner for `source`.
    ///
    /// - Parameters:
    ///   - source: what fetches and stores the pages.
    ///   - clock: the source of "now" for checkpoints, durations and deadlines.
    ///   - logger: where failed runs are reported.
    public init<Source: SyncSource>(
        _ source: Source, clock: any CacheClock = SystemClock(), logger: Logger = Logger(label: "CacheKit.Sync")
    ) {
        name = source.name
        body = { deadline in await Self.run(source, until: deadline, clock: clock, logger: logger) }
    }

    /// Runs the sync until its last page, `deadline` (by the runner's clock, checked before each
    /// page) or the task's cancellation, whichever comes first. Never throws: the report says how it
    /// ended, and its ``SyncReport/error`` why it failed.
    ///
    /// - Parameter deadline: when to stop fetching; `nil` for no limit. A run already going keeps its own.
    public func run(until deadline: Date? = nil) async -> SyncReport {
        let (id, task) = current.withLock { current in
            if let current { return current }
            let id = runs.withLock { runs in
                runs += 1
                return runs
            }
            let task = Task { await body(deadline) }
            current = (id, task)
            return (id, task)
        }
        let report = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        current.withLock { current in
            if current?.id == id { current = nil }
        }
        return report
    }

    private static func run<Source: SyncSource>(_ source: Source, until deadline: Date?, clock: any CacheClock, logger: Logger) async
        -> SyncReport
    {
        let started = clock.now()
        var report = SyncReport(name: source.name)
        do {
            let owner = try await source.owner()
            var checkpoint = try await source.checkpoint(for: owner)
            var request = SyncCheckpoint.nextRequest(
                after: checkpoint, now: started, maximumOfflineDuration: source.maximumOfflineDuration)
            report.mode = request.mode
            report.resumed = request.pageCursor != nil
            while true {
                if Task.isCancelled {
                    report.outcome = .cancelled
                    break
                }
                if let deadline, clock.now() >= deadline {
                    report.outcome = .budgetExhausted
                    break
                }
                let page = try await source.fetchPage(request, for: owner)
                let next = (checkpoint ?? SyncCheckpoint(mode: request.mode)).advanced(by: page, for: request, at: clock.now())
                try await source.store(page, checkpoint: next, for: owner)
                checkpoint = next
                report.pages += 1
                report.requests += page.requests
                report.counts.merge(page.counts, uniquingKeysWith: +)
                guard let cursor = page.nextPageCursor else {
                    report.outcome = .completed
                    break
                }
                request.pageCursor = cursor
            }
        } catch {
            if Task.isCancelled {
                report.outcome = .cancelled
            } else {
                report.outcome = .failed
                report.error = error
                logger.info("Sync stopped by an error", metadata: ["sync": "\(source.name)", "error": "\(error)"])
            }
        }
        report.duration = clock.now().timeIntervalSince(started)
        return report
    }
}
