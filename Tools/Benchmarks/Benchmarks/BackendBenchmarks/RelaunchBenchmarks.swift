import APICore
import APICoreGraphQL
import AccountsKit
import Benchmark
import CacheKit
import CatalogKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import ReferenceBackend

// Relaunch to the first screen, as an app starts again with a warm cache on disk: the app's Composition
// built over the files a previous launch left (every kit, the GraphQL records in SQLite), the session
// launched offline first (the stored token picked up, its check with the server left running), and the
// first screen's two reads from the cache: the catalog's first page and the accounts dashboard.
// Baseline in the same run: the same two response bodies read from one flat file and decoded with
// JSONDecoder into the same structs.

/// Keeps the last body the server sent for the catalog's first page and for the dashboard query.
final class CapturingTransport: HTTPTransport {
    let base = URLSessionTransport()
    let bodies = Locked<[String: Data]>([:])

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let response = try await base.send(request)
        let path = request.url.path
        if path == "/graphql", let body = request.body, String(decoding: body, as: UTF8.self).contains("query Dashboard") {
            bodies.withLock { $0["dashboard"] = response.body }
        } else if path == "/api/funnels/catalog" {
            bodies.withLock { $0["catalog"] = response.body }
        }
        return response
    }
}

/// The files a launch left behind: a signed-in user's caches and token, and the two bodies it received.
struct LaunchedBefore {
    let backend: ReferenceBackend
    let directory: URL
    let flatFile: URL
    let catalogBytes: Int

    // With the kind given: the one-argument form asks the disk, in the measured part, what an app knows.
    var caches: URL { directory.appendingPathComponent("caches", isDirectory: true) }
    var records: URL { caches.appendingPathComponent("graphql/records.sqlite", isDirectory: false) }

    static let logger: Logger = {
        var logger = Logger(label: "bench-relaunch")
        logger.logLevel = .critical
        return logger
    }()

    /// Launches once against a fresh backend: sign in, show the first screen from the network (which
    /// saves its snapshot). No first sync starts: the address book's and the chat history's would run on beside
    /// the measured relaunches, the backend serving ten thousand contacts on the same two cores.
    /// With `sealed`, the first screen's snapshot stays current, as the app left it; without, a store changed since (its
    /// seal is gone), so the next launch reads the first screen through the caches, as it does when the snapshot is not
    /// current.
    static func make(sealed: Bool = false) async throws -> LaunchedBefore {
        let directory = scratchDirectory("RelaunchBench")
        // No limit on the token's checks: 2,000 relaunches would meet it, and a refused check goes offline (a write of
        // the token file at every relaunch) where a real relaunch's check succeeds.
        let backend = try await startBackend(
            .init(databaseURL: directory.appendingPathComponent("backend.sqlite"), authRateLimits: nil, logger: logger))
        let capturing = CapturingTransport()
        let launch = LaunchedBefore(
            backend: backend, directory: directory, flatFile: directory.appendingPathComponent("first-screen.bin"), catalogBytes: 0)
        let app = try launch.composition(transport: capturing, startsFirstSync: false)
        try await app.signIn(email: "alice@example.com", password: "Password1")
        _ = try await app.firstScreen()
        // Then the app went to the background: the snapshot saved again from the caches, fresh and unchanged, is
        // current (the first screen itself at the next launch, for the dashboard's five minutes).
        await app.didEnterBackground()
        if !sealed {
            app.snapshots.storeWillChange()
            app.snapshots.storeDidChange()
        }
        let bodies = capturing.bodies.withLock { $0 }
        guard let catalog = bodies["catalog"], let dashboard = bodies["dashboard"] else { throw BenchmarkSetupError.noToken }
        try (catalog + dashboard).write(to: launch.flatFile)
        return LaunchedBefore(backend: backend, directory: directory, flatFile: launch.flatFile, catalogBytes: catalog.count)
    }

    /// The app over this launch's files, as its composition root builds it.
    func composition(transport: any HTTPTransport = URLSessionTransport(), startsFirstSync: Bool = true) throws -> Composition {
        try Composition(
            baseURL: backend.baseURL, cachesDirectory: caches, transport: transport, retry: .none, logger: Self.logger,
            graphQLStore: try SQLiteRecordStore(url: records, byteLimit: 50 * 1024 * 1024), startsFirstSync: startsFirstSync)
    }
}

/// The catalog's response envelope, for the baseline.
struct CatalogEnvelope: Decodable { var data: CatalogPage }
/// The dashboard query's response, for the baseline.
struct DashboardEnvelope: Decodable {
    struct Fields: Decodable { var dashboard: Dashboard }
    var data: Fields
}

/// A benchmark over the files a first launch left (made once, before its iterations), 2,000 iterations (enough for a
/// profile of the same run).
func relaunchBenchmark(_ name: String, _ body: @escaping (Benchmark, LaunchedBefore) async throws -> Void) {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(30), maxIterations: 2000)
    Benchmark(name, configuration: configuration) { (benchmark: Benchmark, launched: LaunchedBefore) in
        try await body(benchmark, launched)
    } setup: {
        try await LaunchedBefore.make()
    }
}

func relaunchBenchmarks() {
    relaunchBenchmark("Relaunch to the first screen: the catalog's first page and the dashboard, from the cache") { benchmark, launched in
        benchmark.startMeasurement()
        let app = try launched.composition()
        let check = app.session.launchOfflineFirst()
        async let page = app.catalog.page()
        async let dashboard = app.accounts.dashboard()
        let (first, board) = try await (page, dashboard)
        benchmark.stopMeasurement()
        guard first.source == .cache, board.source == .cache, !first.value.funnels.isEmpty else {
            fatalError("the first screen was not read from the cache: \(first.source), \(board.source)")
        }
        blackHole(board.value)
        await check?.value
    }

    relaunchBenchmark("Relaunch to the first frame: the last first screen from its snapshot, before the composition") {
        benchmark, launched in
        benchmark.startMeasurement()
        let last = Composition.lastFirstScreen(cachesDirectory: launched.caches)
        benchmark.stopMeasurement()
        guard let last, !last.value.catalog.funnels.isEmpty else { fatalError("no snapshot of the first screen") }
        blackHole(last)
    }

    // The relaunch's steps apart, to see where its time goes: each measures one step more than the last.
    relaunchBenchmark("Relaunch step 1: the composition alone, over the files") { benchmark, launched in
        benchmark.startMeasurement()
        let app = try launched.composition()
        benchmark.stopMeasurement()
        blackHole(app)
    }

    relaunchBenchmark("Relaunch step 2: the composition and the offline-first launch") { benchmark, launched in
        benchmark.startMeasurement()
        let app = try launched.composition()
        let check = app.session.launchOfflineFirst()
        benchmark.stopMeasurement()
        await check?.value
    }

    relaunchBenchmark("Relaunch step 3: step 2 and the catalog's first page from the cache") { benchmark, launched in
        benchmark.startMeasurement()
        let app = try launched.composition()
        let check = app.session.launchOfflineFirst()
        let first = try await app.catalog.page()
        benchmark.stopMeasurement()
        guard first.source == .cache else { fatalError("the catalog was not read from the cache: \(first.source)") }
        await check?.value
    }

    relaunchBenchmark("Relaunch to the first screen: the same bodies from one flat file, JSONDecoder (baseline)") { benchmark, launched in
        benchmark.startMeasurement()
        let bytes = try Data(contentsOf: launched.flatFile)
        let decoder = JSONDecoder()
        let page = try decoder.decode(CatalogEnvelope.self, from: bytes.prefix(launched.catalogBytes))
        let board = try decoder.decode(DashboardEnvelope.self, from: bytes.dropFirst(launched.catalogBytes))
        benchmark.stopMeasurement()
        blackHole((page.data, board.data.dashboard))
    }
}
