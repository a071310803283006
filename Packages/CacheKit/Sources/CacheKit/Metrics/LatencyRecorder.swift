import Metrics

/// Where a response came from, for latency by source.
public enum LatencySource: String, Sendable, Hashable, Codable {
    /// Served from a cache with no request.
    case cache
    /// Fetched from the network (a 304 revalidation included).
    case network
}

/// Records how long responses take from one source of one feature: to swift-metrics as the timer
/// `cache_latency` (dimensions `feature`, `source`), and in process over the most recent samples so
/// the CLI can print percentiles.
public final class LatencyRecorder: Sendable {
    /// The feature dimension.
    public let feature: String
    /// The source dimension.
    public let source: LatencySource
    /// How many recent samples the in-process percentiles cover.
    public static let sampleCapacity = 4096

    private let timer: Metrics.Timer
    private let samples = Locked(Samples())

    struct Samples {
        var nanoseconds: [Int64] = []
        var next = 0
        var total = 0
    }

    /// Creates a recorder. Prefer ``CacheMetricsRegistry/latency(feature:source:)``.
    public init(feature: String, source: LatencySource) {
        self.feature = feature
        self.source = source
        timer = Metrics.Timer(label: "cache_latency", dimensions: [("feature", feature), ("source", source.rawValue)])
    }

    /// Records one response's latency.
    public func record(_ duration: Duration) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        timer.recordNanoseconds(nanoseconds)
        samples.withLock { samples in
            samples.total += 1
            if samples.nanoseconds.count < Self.sampleCapacity {
                samples.nanoseconds.append(nanoseconds)
            } else {
                samples.nanoseconds[samples.next] = nanoseconds
                samples.next = (samples.next + 1) % Self.sampleCapacity
            }
        }
    }

    /// Percentiles over the recent samples.
    public func summary() -> LatencySummary {
        let (sorted, total) = samples.withLock { ($0.nanoseconds.sorted(), $0.total) }
        func percentile(_ p: Double) -> Duration {
            guard !sorted.isEmpty else { return .zero }
            let index = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))
            return .nanoseconds(sorted[index])
        }
        return LatencySummary(
            feature: feature, source: source, count: total,
            p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99))
    }
}

/// Latency percentiles of one feature's responses from one source.
public struct LatencySummary: Sendable, Hashable {
    /// The feature.
    public var feature: String
    /// The source.
    public var source: LatencySource
    /// Responses recorded in all (the percentiles cover the most recent ones).
    public var count: Int
    /// The median.
    public var p50: Duration
    /// The 90th percentile.
    public var p90: Duration
    /// The 99th percentile.
    public var p99: Duration
}
