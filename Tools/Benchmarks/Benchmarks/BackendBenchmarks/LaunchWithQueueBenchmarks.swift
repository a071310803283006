import APICore
import APICoreOffline
import Benchmark
import CacheKit
import Foundation
import HTTPTypes
import MIBApp

// An app launched with 100 changes its last run queued offline: from the composition's build to the queue
// drained (`Composition.launch()`: the stored token read, its check with the server, the kits' followers, then
// the queue's replay, one change at a time, each durable). Baseline in the same run: the same 100 requests
// (favorites added and removed, each with its idempotency key) sent directly, one after another.

/// The 100 changes: each funnel added, then removed, in turn.
func queuedChanges(_ launched: LaunchedBefore) throws -> [(slug: String, isFavorite: Bool)] {
    let slugs = try launched.backend.catalog.allFunnels().map(\.slug)
    guard !slugs.isEmpty else { throw BenchmarkSetupError.noFunnels }
    return (0..<100).map { (slugs[$0 % slugs.count], ($0 / slugs.count) % 2 == 0) }
}

func launchWithQueueBenchmarks() {
    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(30), maxIterations: 30)

    Benchmark("Launch with 100 changes queued offline, to the queue drained", configuration: configuration) {
        (benchmark: Benchmark, launched: LaunchedBefore) in
        // The last run: signed in, its queue never started (offline), 100 changes queued, then ended. A returning
        // user's first syncs completed long ago, so the launch starts none.
        let before = try launched.composition(startsFirstSync: false)
        await before.session.launch()
        for (slug, isFavorite) in try queuedChanges(launched) { try await before.favorites.setFavorite(slug, isFavorite) }
        guard await before.queue.pending().count == 100 else { fatalError("the last run did not leave 100 changes queued") }

        benchmark.startMeasurement()
        let app = try launched.composition(startsFirstSync: false)
        let states = await app.queue.states()
        await app.launch()
        var published = false
        for await state in states {
            published = published || !state.pending.isEmpty
            if published, state.pending.isEmpty, !state.isReplaying { break }
        }
        benchmark.stopMeasurement()
        guard await app.queue.pending().isEmpty, await app.queue.failures().isEmpty else { fatalError("the queue did not drain") }
    } setup: {
        try await LaunchedBefore.make()
    }

    Benchmark("Launch with 100 changes queued: the same 100 requests sent directly (baseline)", configuration: configuration) {
        (benchmark: Benchmark, launched: LaunchedBefore) in
        let app = try launched.composition(startsFirstSync: false)
        await app.session.launch()
        guard let token = await app.session.currentCredentials()?.accessToken else { throw BenchmarkSetupError.noToken }
        let changes = try queuedChanges(launched)
        let transport = URLSessionTransport()
        benchmark.startMeasurement()
        for (slug, isFavorite) in changes {
            var fields: HTTPFields = [.authorization: "Bearer \(token)"]
            if let key = HTTPField.Name("Idempotency-Key") { fields[key] = UUID().uuidString }
            let response = try await transport.send(TransportRequest(
                method: isFavorite ? .put : .delete, url: launched.backend.baseURL.appendingPathComponent("api/favorites/\(slug)"),
                headerFields: fields))
            guard (200..<300).contains(response.status) else { fatalError("the server answered \(response.status)") }
        }
        benchmark.stopMeasurement()
    } setup: {
        try await LaunchedBefore.make()
    }
}
