import APICore
import CacheKit
import Foundation

/// The demo's clock: the real time plus an offset the story advances ("five minutes later"), so
/// cached entries go stale without waiting.
public final class DemoClock: CacheClock {
    private let offset = Locked<TimeInterval>(0)
    private let frozenAt: Date?

    /// Starts at the real time, and follows it.
    public init() {
        frozenAt = nil
    }

    /// Stands still at `date` until advanced: for tests, whose outcome must not depend on how fast the
    /// machine runs (a sync's budget measured on it never runs out by itself).
    public init(frozenAt date: Date) {
        frozenAt = date
    }

    /// Now (or the frozen moment), plus every advance so far.
    public func now() -> Date { (frozenAt ?? Date()).addingTimeInterval(offset.withLock { $0 }) }

    /// Returns when ``now()`` reaches `date` (an advance counts; a frozen clock waits for one), or throws
    /// when the task is cancelled. Checks ten times a second.
    public func sleep(until date: Date) async throws {
        while now() < date {
            try await Task.sleep(nanoseconds: UInt64(min(max(date.timeIntervalSince(now()), 0.001), 0.1) * 1e9))
        }
        try Task.checkCancellation()
    }

    /// Moves time forward.
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

/// Counts the requests that reach the network, by path, so the demo can say how many a step took.
public final class CountingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let counts = Locked<[String: Int]>([:])

    /// Wraps `base`.
    public init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// Sends through the wrapped transport and counts.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        counts.withLock { $0[request.url.path, default: 0] += 1 }
        return try await base.send(request)
    }

    /// Requests sent to `path` so far (every path when `nil`).
    public func count(_ path: String? = nil) -> Int {
        counts.withLock { counts in path.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +) }
    }
}
