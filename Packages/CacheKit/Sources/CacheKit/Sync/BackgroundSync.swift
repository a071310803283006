import Foundation

/// Every kit's sync, run from the host app's background-refresh task under a time budget: each
/// registered ``SyncRunner`` runs at once beside the others until it completes, the budget is spent
/// (checked before each page, by the injected clock) or the system's time expires (the task is
/// cancelled). What completed is kept; a sync cut off resumes where it stopped on the next run.
/// No UI is involved: the report says what ran.
///
/// On iOS, from the app's `BGAppRefreshTask` (register the identifier under
/// `BGTaskSchedulerPermittedIdentifiers` in Info.plist):
///
/// <!-- example: not compiled, BackgroundTasks is iOS-only -->
/// ```swift
/// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.refresh", using: nil) { task in
///     scheduleDailyRefresh()                                      // the next one, a day later
///     let work = Task { await app.backgroundSync.run() }
///     task.expirationHandler = { work.cancel() }                  // the system's time is up: stop cleanly
///     Task { task.setTaskCompleted(success: await work.value.isComplete) }
/// }
/// ```
public struct BackgroundSync: Sendable {
    /// 30 s: the background time the offline specification allows a daily refresh, and about what
    /// iOS grants a `BGAppRefreshTask`.
    public static let defaultBudget: TimeInterval = 30

    /// The runners, in the order their reports are given.
    public let runners: [SyncRunner]
    private let clock: any CacheClock

    /// Creates the entry point over `runners` (the container's `syncRunners`).
    ///
    /// - Parameters:
    ///   - runners: every kit's registered sync.
    ///   - clock: the source of "now" for the budget; the runners' own clocks decide their deadlines'
    ///     checks, so give both the app's clock.
    public init(runners: [SyncRunner], clock: any CacheClock = SystemClock()) {
        self.runners = runners
        self.clock = clock
    }

    /// Runs every sync within `budget` seconds.
    ///
    /// - Parameter budget: the time allowed, from now; ``defaultBudget`` unless given.
    /// - Returns: one report per runner, in ``runners``' order, and the whole run's duration.
    public func run(budget: TimeInterval = Self.defaultBudget) async -> BackgroundSyncReport {
        let started = clock.now()
        let deadline = started.addingTimeInterval(budget)
        let reports = await withTaskGroup(of: (Int, SyncReport).self) { group in
            for (index, runner) in runners.enumerated() {
                group.addTask { (index, await runner.run(until: deadline)) }
            }
            var reports = [SyncReport?](repeating: nil, count: runners.count)
            for await (index, report) in group { reports[index] = report }
            return reports.compactMap { $0 }
        }
        return BackgroundSyncReport(budget: budget, duration: clock.now().timeIntervalSince(started), syncs: reports)
    }
}

/// What one ``BackgroundSync/run(budget:)`` did.
public struct BackgroundSyncReport: Sendable, Encodable {
    /// The budget it had, in seconds.
    public var budget: TimeInterval
    /// How long it took, in seconds.
    public var duration: TimeInterval
    /// One report per sync.
    public var syncs: [SyncReport]

    /// Whether every sync reached its last page.
    public var isComplete: Bool { syncs.allSatisfy(\.isComplete) }
}

/// Registered with the app's ``UnifiedCacheManager``, the background sync takes part in every clearing:
/// a logout, an expiry, an account deletion or another user's sign-in cancels every run going (each also
/// stops by itself at its next step, as its owner changed; this stops the request in flight at once).
extension BackgroundSync: CacheClearingParticipant {
    /// `syncs`.
    public var participantName: String { "syncs" }
    /// Kit data.
    public var category: CacheCategory { .data }
    /// Holds nothing the app-wide budget counts.
    public var isInAppBudget: Bool { false }

    /// Cancels every run going.
    public func clearAll() async throws {
        for runner in runners { runner.cancel() }
    }

    /// Runs belong to users, not accounts.
    public func clear(forAccountId accountId: String) async throws {}
    /// No keyed entries.
    public func clear(forKey key: String) async throws {}
}
