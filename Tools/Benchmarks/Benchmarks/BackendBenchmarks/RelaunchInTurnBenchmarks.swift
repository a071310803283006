import Benchmark
import Foundation
import GRDBSQLite
import MIBApp

// The first screen through the caches against its baseline, measured in turn: each iteration relaunches over the
// files a first launch left (the composition, the offline-first launch, the catalog's first page and the dashboard
// from the cache) and decodes the same two bodies from one flat file, in a random order, and records the ratio
// of the two times. Both halves share whatever the machine is doing at that moment, so the ratio carries none of
// the drift between separate rows (the baseline alone read 0.19, 0.50 and 0.67 ms in three runs of the same code).

let relaunchRatio = BenchmarkMetric.custom("first screen over the baseline (hundredths)", polarity: .prefersSmaller, useScalingFactor: false)

func relaunchInTurnBenchmarks() {
    inTurnWithTheBaseline(
        "Relaunch in turn with its baseline: the first screen through the caches, the same bodies with JSONDecoder",
        firstScreenThroughTheCaches)

    // The floor under the first row, in turn with the same baseline: SQLite's own work to open the two files the
    // first screen reads (the HTTP cache's and the GraphQL records') with their per-connection settings and read their
    // rows, through SQLite's C interface with nothing above it, then the same two bodies decoded with JSONDecoder.
    inTurnWithTheBaseline(
        "Relaunch in turn with its baseline: SQLite's own work for the first screen, then the same bodies with JSONDecoder",
        sqliteOwnWork)

    // The first screen when its snapshot is current (saved from the fresh caches as the app went to the background,
    // no store changed since): the snapshot is the first screen, shown before the composition is built. The second
    // row builds the composition after it and launches the session, as an app goes on to.
    inTurnWithTheBaseline(
        "Relaunch in turn with its baseline: the first screen from its current snapshot, the same bodies with JSONDecoder", sealed: true
    ) { launched, clock in
        let started = clock.now
        let screen = currentFirstScreen(launched)
        let took = clock.now - started
        expectWhole(screen)
        blackHole(screen)
        return took
    }
    inTurnWithTheBaseline(
        "Relaunch in turn with its baseline: the first screen from its current snapshot, then the composition and the launch", sealed: true
    ) { launched, clock in
        let started = clock.now
        let screen = currentFirstScreen(launched)
        let app = try launched.composition()
        let check = app.session.launchOfflineFirst()
        let took = clock.now - started
        expectWhole(screen)
        blackHole(screen)
        await check?.value
        return took
    }
}

/// The first screen from its snapshot, which must be current. Whether it holds the page is checked once the clock
/// has stopped (`expectWhole`): `CatalogPage.funnels` sorts the page, which the baseline does not do either.
private func currentFirstScreen(_ launched: LaunchedBefore) -> FirstScreen {
    guard let last = Composition.lastFirstScreen(cachesDirectory: launched.caches), last.isCurrent
    else { fatalError("the first screen's snapshot is not current") }
    return last.value
}

/// Stops the run when `screen` lacks the catalog's page or the dashboard's accounts.
private func expectWhole(_ screen: FirstScreen) {
    guard !screen.catalog.pillars.isEmpty, !screen.dashboard.accounts.isEmpty else { fatalError("the snapshot lacks the first screen") }
}

/// A row that measures `measured` and the baseline in each iteration, in a random order, and records their ratio.
private func inTurnWithTheBaseline(
    _ name: String, sealed: Bool = false, _ measured: @escaping @Sendable (LaunchedBefore, ContinuousClock) async throws -> Duration
) {
    Benchmark(name, configuration: .init(metrics: [relaunchRatio], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 500)) {
        (benchmark: Benchmark, launched: LaunchedBefore) in
        let clock = ContinuousClock()
        let measuredFirst = Bool.random()
        var baseline = measuredFirst ? Duration.zero : try decodedFromAFlatFile(launched, clock: clock)
        // On threads of its own: the harness holds one of the shared pool's two (AppThreads.swift).
        let took = try await withTaskExecutorPreference(AppThreads.shared) { try await measured(launched, clock) }
        if measuredFirst { baseline = try decodedFromAFlatFile(launched, clock: clock) }
        benchmark.measurement(relaunchRatio, Int((took / baseline * 100).rounded()))
    } setup: {
        try await LaunchedBefore.make(sealed: sealed)
    }
}

/// The two files opened and read with SQLite alone, then the bodies decoded from memory (read from their flat file
/// before, unmeasured, so the floor counts no file the first screen does not read); the connections are closed
/// unmeasured, as the composition's are at its end.
private func sqliteOwnWork(_ launched: LaunchedBefore, clock: ContinuousClock) throws -> Duration {
    let flat = try Data(contentsOf: launched.flatFile)
    let started = clock.now
    let catalog = try RawSQLite(launched.caches.appendingPathComponent("catalog/cache.sqlite", isDirectory: false))
    let records = try RawSQLite(launched.records)
    let bytes = catalog.readAll("SELECT value, checksum, stored_at, expires_at, timeout, user_id, account_id, tags FROM entry")
        + records.readAll("SELECT key, body, account FROM record")
    let decoder = JSONDecoder()
    let page = try decoder.decode(CatalogEnvelope.self, from: flat.prefix(launched.catalogBytes))
    let board = try decoder.decode(DashboardEnvelope.self, from: flat.dropFirst(launched.catalogBytes))
    let took = clock.now - started
    guard bytes > launched.catalogBytes else { fatalError("the cache files hold less than the first screen's bodies") }
    blackHole((page.data, board.data.dashboard))
    return took
}

/// One SQLite connection with the settings a cache store's has, through SQLite's C interface.
private final class RawSQLite {
    private var handle: OpaquePointer?

    init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            sqlite3_exec(
                handle,
                "PRAGMA secure_delete = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA user_version",
                nil, nil, nil) == SQLITE_OK
        else { throw BenchmarkSetupError.sqlite("\(url.lastPathComponent) did not open") }
    }

    /// Steps through every row of `sql`, touching each column's bytes; returns how many bytes were read.
    func readAll(_ sql: String) -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return 0 }
        defer { sqlite3_finalize(statement) }
        var bytes = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<sqlite3_column_count(statement) {
                _ = sqlite3_column_blob(statement, column)
                bytes += Int(sqlite3_column_bytes(statement, column))
            }
        }
        return bytes
    }

    deinit { sqlite3_close(handle) }
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
