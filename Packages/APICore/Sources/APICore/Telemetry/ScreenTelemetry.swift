import CacheKit
import Foundation
import Histogram
import Logging
import Metrics

/// What the host app reports about its screens (REQ OBS-4): a screen appeared, its content was displayed
/// (time-to-interactive, split by the source that filled it), it disappeared (time on screen), and the
/// funnel stages the user reached. Percentiles come from HDR histograms (3 significant digits), not from
/// a sorted sample. When the user opts out, nothing is recorded, exported or kept.
///
/// ```swift
/// let visit = screens.appeared("catalog")
/// // … the first content is on screen:
/// screens.displayed(visit, from: response.source == .network ? .network : .cache)
/// screens.reached("catalog")
/// // … later:
/// screens.disappeared(visit)
/// screens.timeToInteractive(from: .cache)   // p50, p90, p99 in milliseconds
/// ```
///
/// swift-metrics: timers `screen_time_to_interactive{screen,source}` and `screen_time_on_screen{screen}`,
/// counter `funnel_stage_reached_total{stage}`. swift-log: one `debug` line per measure.
public final class ScreenTelemetry: Sendable {
    /// What filled a screen.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// Data already on the device.
        case cache
        /// Data fetched for this visit (a revalidation counts as network).
        case network
    }

    /// One visit of a screen, from ``appeared(_:)``.
    public struct Visit: Sendable, Hashable {
        /// The screen's name.
        public let screen: String
        let id: Int
        let appearedAt: Date
    }

    /// Percentiles of a histogram, in milliseconds.
    public struct Percentiles: Sendable, Hashable {
        /// Values recorded.
        public var count: Int
        /// The median.
        public var p50: Double
        /// The 90th percentile.
        public var p90: Double
        /// The 99th percentile.
        public var p99: Double
    }

    private struct State {
        var optedOut = false
        var nextVisit = 0
        var displayed: Set<Int> = []
        var timeToInteractive: [Source: Histogram<UInt64>] = [:]
        /// Made at the first visit's end: an empty histogram's buckets take a tenth of a millisecond to make.
        var timeOnScreen: Histogram<UInt64>?
        var funnel: [String: Int] = [:]
    }

    /// One hour, the longest time a histogram tracks (longer values count as one hour).
    static let highestMilliseconds: UInt64 = 3_600_000

    private let clock: any CacheClock
    private let metrics: any MetricsFactory
    private let logger: Logger?
    private let state = Locked(State())

    /// Creates a recorder.
    /// - Parameters:
    ///   - clock: the app's clock.
    ///   - optedOut: whether the user opted out at start (the app's stored choice).
    ///   - metrics: where timers and counters go; the bootstrapped swift-metrics backend by default.
    ///   - logger: where each measure is logged at `debug`; `nil` for nowhere.
    public init(
        clock: any CacheClock = SystemClock(), optedOut: Bool = false, metrics: any MetricsFactory = MetricsSystem.factory,
        logger: Logger? = nil
    ) {
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        state.withLock { $0.optedOut = optedOut }
    }

    /// Whether the user opted out.
    public var isOptedOut: Bool { state.withLock { $0.optedOut } }

    /// Records the user's choice. Opting out also forgets what was recorded in this process.
    public func setOptedOut(_ optedOut: Bool) {
        state.withLock { state in
            if optedOut { state = State() }
            state.optedOut = optedOut
        }
    }

    /// A screen appeared: the start of its time-to-interactive and of its time on screen.
    public func appeared(_ screen: String) -> Visit {
        let now = clock.now()
        let id = state.withLock { state in
            state.nextVisit += 1
            return state.nextVisit
        }
        return Visit(screen: screen, id: id, appearedAt: now)
    }

    /// The visit's first content is on screen: records its time-to-interactive under `source`. Only the
    /// first call per visit counts (a refresh is not a second first paint).
    public func displayed(_ visit: Visit, from source: Source) {
        let milliseconds = elapsed(since: visit.appearedAt)
        let recorded: Bool = state.withLock { state in
            guard !state.optedOut, state.displayed.insert(visit.id).inserted else { return false }
            state.timeToInteractive[source, default: Histogram(highestTrackableValue: Self.highestMilliseconds)].record(milliseconds)
            return true
        }
        guard recorded else { return }
        Timer(label: "screen_time_to_interactive", dimensions: [("screen", visit.screen), ("source", source.rawValue)], factory: metrics)
            .recordMilliseconds(milliseconds)
        logger?.debug(
            "Screen interactive", metadata: ["screen": "\(visit.screen)", "source": "\(source.rawValue)", "ms": "\(milliseconds)"])
    }

    /// The visit ended: records its time on screen.
    public func disappeared(_ visit: Visit) {
        let milliseconds = elapsed(since: visit.appearedAt)
        let recorded: Bool = state.withLock { state in
            state.displayed.remove(visit.id)
            guard !state.optedOut else { return false }
            state.timeOnScreen = state.timeOnScreen ?? Histogram(highestTrackableValue: Self.highestMilliseconds)
            state.timeOnScreen?.record(milliseconds)
            return true
        }
        guard recorded else { return }
        Timer(label: "screen_time_on_screen", dimensions: [("screen", visit.screen)], factory: metrics).recordMilliseconds(milliseconds)
        logger?.debug("Screen left", metadata: ["screen": "\(visit.screen)", "ms": "\(milliseconds)"])
    }

    /// The user reached a funnel stage (`login`, `catalog`, `detail`, `payment` in the demo).
    public func reached(_ stage: String) {
        let recorded: Bool = state.withLock { state in
            guard !state.optedOut else { return false }
            state.funnel[stage, default: 0] += 1
            return true
        }
        guard recorded else { return }
        Counter(label: "funnel_stage_reached_total", dimensions: [("stage", stage)], factory: metrics).increment()
    }

    /// Time-to-interactive percentiles of screens filled from `source`; `nil` before any.
    public func timeToInteractive(from source: Source) -> Percentiles? {
        state.withLock { state in state.timeToInteractive[source].flatMap(Self.percentiles) }
    }

    /// Time-on-screen percentiles; `nil` before any.
    public func timeOnScreen() -> Percentiles? {
        state.withLock { $0.timeOnScreen.flatMap(Self.percentiles) }
    }

    /// How many times each funnel stage was reached.
    public func funnel() -> [String: Int] {
        state.withLock { $0.funnel }
    }

    private func elapsed(since start: Date) -> UInt64 {
        let milliseconds = (clock.now().timeIntervalSince(start) * 1_000).rounded()
        return UInt64(min(max(milliseconds, 0), Double(Self.highestMilliseconds)))
    }

    private static func percentiles(_ histogram: Histogram<UInt64>) -> Percentiles? {
        guard histogram.totalCount > 0 else { return nil }
        return Percentiles(
            count: Int(histogram.totalCount), p50: Double(histogram.valueAtPercentile(50)), p90: Double(histogram.valueAtPercentile(90)),
            p99: Double(histogram.valueAtPercentile(99)))
    }
}

extension Metrics.Timer {
    fileprivate func recordMilliseconds(_ milliseconds: UInt64) {
        recordNanoseconds(Int64(milliseconds) * 1_000_000)
    }
}
