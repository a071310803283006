import APICore
import CacheKit
import Foundation

/// What the live cache dashboard shows at one moment (`GET /api/state`): every store, time-to-interactive
/// by source with its history, the error rate with the alert, the funnel, and the redacted entries.
public struct DashboardState: Codable, Sendable {
    /// One store of one participant.
    public struct Store: Codable, Sendable, Hashable {
        public var participant: String
        public var store: String
        public var entries: Int
        public var bytes: Int
        public var hits: Int
        public var misses: Int
        /// Hits over lookups, 0 before any.
        public var hitRate: Double
    }

    /// Percentiles in milliseconds.
    public struct Percentiles: Codable, Sendable, Hashable {
        public var count: Int
        public var p50: Double
        public var p90: Double
        public var p99: Double
    }

    /// One point of the charts.
    public struct Sample: Codable, Sendable, Hashable {
        /// Seconds since the dashboard started.
        public var second: Double
        /// Time-to-interactive p50 by source (`cache`, `network`), milliseconds.
        public var timeToInteractive: [String: Double]
        /// Failed requests over requests in the alert's window.
        public var errorRate: Double
    }

    /// The error rate and the alert.
    public struct Errors: Codable, Sendable, Hashable {
        public var requests: Int
        public var failures: Int
        public var rate: Double
        public var alertFiring: Bool
    }

    /// A kit's sync: what it is doing, when it last completed, and how its last run went.
    public struct Sync: Codable, Sendable, Hashable {
        public var name: String
        /// `idle`, `running` (with pages and records so far) or `failed` (with why).
        public var activity: String
        public var lastCompletedAt: Date?
        public var firstSyncFinished: Bool
        /// The last run's mode, pages, records, outcome and duration in milliseconds, if one ran.
        public var lastMode: String?
        public var lastPages: Int?
        public var lastItems: Int?
        public var lastOutcome: String?
        public var lastMilliseconds: Int?
    }

    public var stores: [Store]
    /// Every kit's sync (the address book's, the chat history's).
    public var syncs: [Sync]
    public var timeToInteractive: [String: Percentiles]
    public var history: [Sample]
    public var errors: Errors
    public var funnel: [String: Int]
    /// Entries (keys, users and accounts redacted; no values), those matching the search when there is one.
    public var entries: [CacheExportEntry]
}

extension DashboardState.Store {
    init(_ statistics: CacheStoreStatistics) {
        self.init(
            participant: statistics.participant, store: statistics.counts.store, entries: statistics.usage.count,
            bytes: statistics.usage.bytes, hits: statistics.counts.hits, misses: statistics.counts.misses,
            hitRate: statistics.counts.hitRate)
    }
}

extension DashboardState.Sync {
    init(_ runner: SyncRunner) {
        let state = runner.state
        let report = runner.lastReport
        let activity: String
        switch state.activity {
        case .idle: activity = "idle"
        case .running(let pages, let items, let total):
            activity = "running: \(pages) pages, \(items)\(total.map { " of \($0)" } ?? "") records"
        case .failed(let failure): activity = "failed: \(failure.localizedDescription)"
        }
        self.init(
            name: runner.name, activity: activity, lastCompletedAt: state.lastCompletedAt, firstSyncFinished: state.isFirstSyncFinished,
            lastMode: report?.mode?.rawValue, lastPages: report?.pages, lastItems: report?.items, lastOutcome: report?.outcome.rawValue,
            lastMilliseconds: report.map { Int($0.duration * 1_000) })
    }
}

extension DashboardState.Percentiles {
    init(_ percentiles: ScreenTelemetry.Percentiles) {
        self.init(count: percentiles.count, p50: percentiles.p50, p90: percentiles.p90, p99: percentiles.p99)
    }
}
