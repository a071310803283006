import Benchmark
import Foundation
import APICore
import CacheKit

let scratch: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(2))
    let base = URL(string: "https://api.example.com")!
    Benchmark("Scratch: URL build", configuration: fast) { benchmark in
        for _ in benchmark.scaledIterations {
            var components = URLComponents(url: URL(string: "/api/funnels/catalog", relativeTo: base)!.absoluteURL, resolvingAgainstBaseURL: true)!
            components.queryItems = [URLQueryItem(name: "limit", value: "50")]
            blackHole(components.url!.absoluteString)
        }
    }
    Benchmark("Scratch: registry lookups", configuration: fast) { benchmark in
        let registry = CacheMetricsRegistry()
        for _ in benchmark.scaledIterations {
            blackHole(registry.metrics(store: "http", feature: "rest"))
            blackHole(registry.latency(feature: "rest", source: .cache))
        }
    }
    Benchmark("Scratch: latency record", configuration: fast) { benchmark in
        let recorder = LatencyRecorder(feature: "x", source: .cache)
        for _ in benchmark.scaledIterations {
            recorder.record(.microseconds(3))
        }
    }
}
