import Benchmark
import Foundation

// The first screen through the caches against its baseline, measured in turn: each iteration relaunches over the
// files a first launch left (the composition, the offline-first launch, the catalog's first page and the dashboard
// from the cache) and decodes the same two bodies from one flat file, in a random order, and records the ratio
// of the two times. Both halves share whatever the machine is doing at that moment, so the ratio carries none of
// the drift between separate rows (the baseline alone read 0.19, 0.50 and 0.67 ms in three runs of the same code).

let relaunchRatio = BenchmarkMetric.custom("first screen over the baseline (hundredths)", polarity: .prefersSmaller, useScalingFactor: false)

func relaunchInTurnBenchmarks() {
    Benchmark(
        "Relaunch in turn with its baseline: the first screen through the caches, the same bodies with JSONDecoder",
        configuration: .init(metrics: [relaunchRatio], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 500)
    ) { (benchmark: Benchmark, launched: LaunchedBefore) in
        let clock = ContinuousClock()
        let cachesFirst = Bool.random()
        var baseline = cachesFirst ? Duration.zero : try decodedFromAFlatFile(launched, clock: clock)
        let caches = try await firstScreenThroughTheCaches(launched, clock: clock)
        if cachesFirst { baseline = try decodedFromAFlatFile(launched, clock: clock) }
        benchmark.measurement(relaunchRatio, Int((caches / baseline * 100).rounded()))
    } setup: {
        try await LaunchedBefore.make()
    }
}

/// How long the relaunch took to its first screen from the caches; the token's check is awaited after, unmeasured.
private func firstScreenThroughTheCaches(_ launched: LaunchedBefore, clock: ContinuousClock) async throws -> Duration {
    let started = clock.now
    let app = try launched.composition()
    let check = app.session.launchOfflineFirst()
    async let page = app.catalog.page()
    async let dashboard = app.accounts.dashboard()
    let (first, board) = try await (page, dashboard)
    let took = clock.now - started
    guard first.source == .cache, board.source == .cache else { fatalError("the first screen was not read from the cache") }
    blackHole((first.value, board.value))
    await check?.value
    return took
}

/// How long the baseline took: the two bodies read from one flat file and decoded with `JSONDecoder`.
private func decodedFromAFlatFile(_ launched: LaunchedBefore, clock: ContinuousClock) throws -> Duration {
    let started = clock.now
    let bytes = try Data(contentsOf: launched.flatFile)
    let decoder = JSONDecoder()
    let page = try decoder.decode(CatalogEnvelope.self, from: bytes.prefix(launched.catalogBytes))
    let board = try decoder.decode(DashboardEnvelope.self, from: bytes.dropFirst(launched.catalogBytes))
    let took = clock.now - started
    blackHole((page.data, board.data.dashboard))
    return took
}
