import Benchmark
import ContactsKit
import Foundation

// The full sync against its baseline, measured in turn: each iteration fetches and decodes every page, then syncs a
// fresh device from the same backend, and records the ratio of the two times. Both halves share whatever the machine
// is doing at that moment, so the ratio carries none of the drift between runs that two separate rows do (the
// baseline alone moved from 370 to 642 ms between runs of the same code).

let inTurnRatio = BenchmarkMetric.custom("ContactsKit over the baseline (hundredths)", polarity: .prefersSmaller, useScalingFactor: false)

func fullSyncInTurnBenchmarks() {
    for (count, iterations) in [(10_000, 20), (100_000, 6)] {
        Benchmark(
            "Full sync in turn with its baseline, \(count) contacts",
            configuration: .init(metrics: [inTurnRatio], scalingFactor: .one, maxDuration: .seconds(600), maxIterations: iterations)
        ) { (benchmark: Benchmark, bench: ContactsBench) in
            let clock = ContinuousClock()
            let baseline = try await clock.measure {
                let total = try await fetchAndDecodeAll(bench.rest(CountingRequests()))
                precondition(total == count)
            }
            let client = bench.client(CountingRequests())
            let sync = await clock.measure {
                let report = await client.syncNow()
                precondition(report.isComplete && report.counts["contacts"] == count, "\(report)")
            }
            try await client.store.clearAll()
            benchmark.measurement(inTurnRatio, Int((sync / baseline * 100).rounded()))
        } setup: {
            try await ContactsBench.start(contacts: count)
        }
    }
}
