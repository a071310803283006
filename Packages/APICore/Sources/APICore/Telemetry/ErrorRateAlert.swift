import CacheKit
import Foundation

/// Fires when too many requests fail in a sliding window (REQ OBS-2): by default more than 5% of the
/// requests of the last 5 minutes, once the window holds at least 20 requests (a window with fewer says
/// nothing), and clears when the rate falls back to the threshold or below.
///
/// Time comes from the `CacheClock` it is given, so tests drive it with a manual clock. Requests are
/// counted in one-second buckets; memory is bounded by the window's length.
public final class ErrorRateAlert: Sendable {
    /// When the alert fires.
    public struct Configuration: Sendable, Hashable {
        /// The sliding window's length.
        public var window: TimeInterval
        /// The failure rate above which it fires (0.05 is 5%).
        public var threshold: Double
        /// The fewest requests in the window for the rate to count.
        public var minimumRequests: Int

        /// Creates a configuration.
        public init(window: TimeInterval = 300, threshold: Double = 0.05, minimumRequests: Int = 20) {
            self.window = max(1, window)
            self.threshold = threshold
            self.minimumRequests = max(1, minimumRequests)
        }
    }

    /// The alert's state and the window it was computed over.
    public struct Status: Sendable, Hashable {
        /// Whether the alert is firing.
        public var isFiring: Bool
        /// Requests in the window.
        public var requests: Int
        /// Failed requests in the window.
        public var failures: Int
        /// `failures / requests`, 0 for an empty window.
        public var rate: Double { requests == 0 ? 0 : Double(failures) / Double(requests) }
    }

    private struct Bucket {
        var second: Int64
        var requests: Int
        var failures: Int
    }

    private struct State {
        var buckets: [Bucket] = []
        var firing = false
    }

    /// How it fires.
    public let configuration: Configuration
    private let clock: any CacheClock
    private let state = Locked(State())

    /// Creates an alert reading time from `clock`.
    public init(configuration: Configuration = Configuration(), clock: any CacheClock = SystemClock()) {
        self.configuration = configuration
        self.clock = clock
    }

    /// Records one request's outcome.
    /// - Returns: the new status when the alert changed state (fired or cleared), else `nil`.
    @discardableResult
    public func record(failed: Bool) -> Status? {
        let second = Int64(clock.now().timeIntervalSince1970.rounded(.down))
        return state.withLock { state in
            if let last = state.buckets.indices.last, state.buckets[last].second == second {
                state.buckets[last].requests += 1
                state.buckets[last].failures += failed ? 1 : 0
            } else {
                state.buckets.append(Bucket(second: second, requests: 1, failures: failed ? 1 : 0))
            }
            return transition(&state, at: second)
        }
    }

    /// The status now (the window slides with the clock even when nothing is recorded).
    /// - Returns: the status, and whether it changed state on this evaluation.
    public func evaluate() -> (status: Status, changed: Bool) {
        let second = Int64(clock.now().timeIntervalSince1970.rounded(.down))
        return state.withLock { state in
            let changed = transition(&state, at: second) != nil
            return (status(state), changed)
        }
    }

    private func transition(_ state: inout State, at second: Int64) -> Status? {
        let oldest = second - Int64(configuration.window) + 1
        state.buckets.removeAll { $0.second < oldest }
        let now = status(state)
        let firing = now.requests >= configuration.minimumRequests && now.rate > configuration.threshold
        guard firing != state.firing else { return nil }
        state.firing = firing
        var changed = now
        changed.isFiring = firing
        return changed
    }

    private func status(_ state: State) -> Status {
        let requests = state.buckets.reduce(0) { $0 + $1.requests }
        let failures = state.buckets.reduce(0) { $0 + $1.failures }
        return Status(isFiring: state.firing, requests: requests, failures: failures)
    }
}
