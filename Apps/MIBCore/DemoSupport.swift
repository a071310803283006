import APICore
import CacheKit
import Foundation

/// The demo's clock: the real time plus an offset the story advances ("five minutes later"), so
/// cached entries go stale without waiting.
public final class DemoClock: CacheClock {
    private let offset = Locked<TimeInterval>(0)

    /// Starts at the real time.
    public init() {}

    /// Now, plus every advance so far.
    public func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

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
