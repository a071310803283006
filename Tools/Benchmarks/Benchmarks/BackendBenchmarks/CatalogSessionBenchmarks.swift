import APICore
import APICoreREST
import Benchmark
import CacheKit
import CacheKitTesting
import CatalogKit
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import Synchronization

// CatalogKit's figures: one replayed browsing session of the catalog against the reference backend over
// real HTTP, through CatalogKit (cache first, 5 and 10 minute timeouts, 304 revalidation), side by
// side with the same session and no cache (every request a full 200, the baseline). Then the cache-hit
// latency of one page against the same page from the backend.

/// Counts what crosses the wire: requests, full responses, 304s, and response bytes (status line,
/// header fields and body).
final class MeasuringTransport: HTTPTransport {
    struct Tally: Sendable {
        var requests = 0
        var notModified = 0
        var bytes = 0
    }

    private let base = URLSessionTransport()
    private let tally = Mutex(Tally())

    var current: Tally { tally.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let response = try await base.send(request)
        let headerBytes = response.headerFields.reduce(17) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        tally.withLock {
            $0.requests += 1
            if response.status == 304 { $0.notModified += 1 }
            $0.bytes += headerBytes + response.body.count
        }
        return response
    }
}

/// One screen action of the replayed session.
enum BrowsingAction: Sendable {
    /// Open the catalog and scroll through this many pages (cache first).
    case browse(pages: Int)
    /// Pull to refresh the first page.
    case pullToRefresh
    /// Open a funnel's detail and definition.
    case open(slug: String)
    /// Time passes, in seconds.
    case wait(Double)
    /// The catalog changes on the server.
    case serverChange
}

/// A deterministic hour of browsing: 120 actions 30 s apart on average, mostly the first pages and
/// the popular funnels, a pull-to-refresh now and then, and one change on the server half-way.
let browsingSession: [BrowsingAction] = {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((seed >> 33) % UInt64(bound))
    }
    var actions: [BrowsingAction] = []
    for step in 0..<120 {
        if step == 60 { actions.append(.serverChange) }
        switch next(20) {
        case 0: actions.append(.pullToRefresh)
        case 1...9: actions.append(.browse(pages: 1 + min(next(4), next(6))))
        default: actions.append(.open(slug: "funnel-\(1 + min(next(40), next(40)))"))
        }
        actions.append(.wait(Double(10 + next(40))))
    }
    return actions
}()

/// What one replay saw.
struct SessionOutcome {
    /// Reads that may use the cache (pull-to-refresh is not one: it always goes to the server).
    var lookups = 0
    /// Lookups answered by a fresh cached response, with no request.
    var hits = 0
    /// Lookups answered by a 304: the stored body reused.
    var revalidated = 0
    /// Lookups of a URL the session had not read before: misses whatever the cache does.
    var firstTime = 0
    /// Lookups that transferred a body, by why: first-time page, first-time detail or definition, or a
    /// repeat whose stored response had changed on the server (a 200 to a revalidation).
    var firstTimePages = 0
    var firstTimeFunnels = 0
    var changedOnServer = 0
    var wire = MeasuringTransport.Tally()
}

/// Replays the session through a client. With `cached == false`, every read ignores the cache (the
/// baseline: a client with no cache at all). Pull-to-refresh sends a request but is not a lookup.
func replay(_ actions: [BrowsingAction], backend: ReferenceBackend, cached: Bool) async throws -> SessionOutcome {
    let clock = ManualClock()
    let transport = MeasuringTransport()
    var logger = Logger(label: "bench-catalog")
    logger.logLevel = .critical
    let caches = scratchDirectory("CatalogBench")
    defer { try? FileManager.default.removeItem(at: caches) }
    let client = CatalogClient(sharing: .init(
        baseURL: backend.baseURL, transport: transport,
        environment: CacheEnvironment(clock: clock, logger: logger, cachesDirectory: caches), retry: .none))
    let read: CachePolicy = cached ? .returnCacheDataElseFetch : .fetchIgnoringCacheCompletely
    var outcome = SessionOutcome()
    var seen: Set<String> = []
    func count(_ source: ResponseSource, _ identity: String) {
        outcome.lookups += 1
        let isFirst = seen.insert(identity).inserted
        if isFirst { outcome.firstTime += 1 }
        if source == .network {
            if !isFirst {
                outcome.changedOnServer += 1
            } else if identity.hasPrefix("page:") {
                outcome.firstTimePages += 1
            } else {
                outcome.firstTimeFunnels += 1
            }
        }
        if source == .cache { outcome.hits += 1 }
        if source == .revalidated { outcome.revalidated += 1 }
    }
    var toggled = false
    for action in actions {
        switch action {
        case .browse(let pages):
            var cursor: String?
            for _ in 0..<pages {
                let page = try await client.page(cursor: cursor, policy: read)
                count(page.source, "page:\(cursor ?? "")")
                cursor = page.value.nextCursor
                if cursor == nil { break }
            }
        case .pullToRefresh:
            _ = try await client.page(policy: cached ? .fetchIgnoringCacheData : read)
        case .open(let slug):
            count(try await client.funnel(slug: slug, policy: read).source, "detail:\(slug)")
            count(try await client.definition(slug: slug, policy: read).source, "definition:\(slug)")
        case .wait(let seconds):
            clock.advance(by: seconds)
        case .serverChange:
            toggled.toggle()
            _ = try backend.catalog.update(slug: "funnel-2", title: nil, isActive: toggled)
        }
    }
    outcome.wire = transport.current
    return outcome
}

/// Starts a backend for the session benchmarks.
func startCatalogBackend() async throws -> ReferenceBackend {
    var logger = Logger(label: "bench-backend")
    logger.logLevel = .critical
    let directory = scratchDirectory("CatalogBenchBackend")
    return try await startBackend(.init(databaseURL: directory.appendingPathComponent("backend.sqlite"), logger: logger))
}

let catalogSessionBenchmarks: @Sendable () -> Void = {
    let hitRate = BenchmarkMetric.custom("hit rate (%)", polarity: .prefersLarger, useScalingFactor: false)
    let reused = BenchmarkMetric.custom("hit or 304 (%)", polarity: .prefersLarger, useScalingFactor: false)
    let repeatHitRate = BenchmarkMetric.custom("hit rate of repeat lookups (%)", polarity: .prefersLarger, useScalingFactor: false)
    let lookups = BenchmarkMetric.custom("lookups", polarity: .prefersSmaller, useScalingFactor: false)
    let firstTime = BenchmarkMetric.custom("of which first-time", polarity: .prefersSmaller, useScalingFactor: false)
    let requests = BenchmarkMetric.custom("requests sent", polarity: .prefersSmaller, useScalingFactor: false)
    let notModified = BenchmarkMetric.custom("of which 304", polarity: .prefersLarger, useScalingFactor: false)
    let kilobytes = BenchmarkMetric.custom("response KB received", polarity: .prefersSmaller, useScalingFactor: false)
    let missPages = BenchmarkMetric.custom("body transferred: first-time page", polarity: .prefersSmaller, useScalingFactor: false)
    let missFunnels = BenchmarkMetric.custom("body transferred: first-time detail or definition", polarity: .prefersSmaller, useScalingFactor: false)
    let missChanged = BenchmarkMetric.custom("body transferred: changed on the server", polarity: .prefersSmaller, useScalingFactor: false)
    let session = Benchmark.Configuration(metrics: [.wallClock, lookups, firstTime, hitRate, repeatHitRate,
                                                                    reused, requests, notModified, kilobytes,
                                                                    missPages, missFunnels, missChanged],
                                          maxDuration: .seconds(60), maxIterations: 5)

    for cached in [true, false] {
        Benchmark("Catalog browsing session (\(browsingSession.count / 2) screens): " + (cached ? "CatalogKit" : "no cache (baseline)"),
                  configuration: session) { (benchmark: Benchmark, backend: ReferenceBackend) in
            for _ in benchmark.scaledIterations {
                let outcome = try await replay(browsingSession, backend: backend, cached: cached)
                benchmark.measurement(lookups, outcome.lookups)
                benchmark.measurement(firstTime, outcome.firstTime)
                benchmark.measurement(hitRate, outcome.hits * 100 / max(outcome.lookups, 1))
                benchmark.measurement(repeatHitRate, outcome.hits * 100 / max(outcome.lookups - outcome.firstTime, 1))
                benchmark.measurement(reused, (outcome.hits + outcome.revalidated) * 100 / max(outcome.lookups, 1))
                benchmark.measurement(requests, outcome.wire.requests)
                benchmark.measurement(notModified, outcome.wire.notModified)
                benchmark.measurement(kilobytes, outcome.wire.bytes / 1_000)
                benchmark.measurement(missPages, outcome.firstTimePages)
                benchmark.measurement(missFunnels, outcome.firstTimeFunnels)
                benchmark.measurement(missChanged, outcome.changedOnServer)
            }
        } setup: {
            try await startCatalogBackend()
        }
    }

    let latency = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(20), maxIterations: 2_000)
    Benchmark("Catalog page (limit 50): CatalogKit cache hit", configuration: latency) {
        (benchmark: Benchmark, setup: (ReferenceBackend, CatalogClient)) in
        for _ in benchmark.scaledIterations {
            let page = try await setup.1.page()
            guard page.source == .cache else { throw BenchmarkSetupError.status(page.status) }
            blackHole(page.value)
        }
    } setup: {
        let backend = try await startCatalogBackend()
        var logger = Logger(label: "bench-catalog")
        logger.logLevel = .critical
        let client = CatalogClient(sharing: .init(
            baseURL: backend.baseURL,
            environment: CacheEnvironment(clock: ManualClock(), logger: logger,
                                          cachesDirectory: scratchDirectory("CatalogBenchHit")),
            retry: .none))
        _ = try await client.page()
        return (backend, client)
    }
    Benchmark("Catalog page (limit 50): from the backend, no cache (baseline)", configuration: latency) {
        (benchmark: Benchmark, client: CatalogClient) in
        for _ in benchmark.scaledIterations {
            blackHole(try await client.page(policy: .fetchIgnoringCacheCompletely).value)
        }
    } setup: {
        let backend = try await startCatalogBackend()
        return CatalogClient(sharing: .init(baseURL: backend.baseURL, retry: .none))
    }
}
