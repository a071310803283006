import APICore
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

// Side by side, in one run: the REST cache-hit path (request in, decoded value out, fresh entry in
// memory) against JSONDecoder decoding the same bytes; and a 304 revalidation against a full 200
// fetch of the same resource from a local Hummingbird server.

/// A catalog page like the catalog contract's: 50 funnels in 5 pillars.
struct CatalogPage: Codable, Sendable {
    struct Funnel: Codable, Sendable { var id: String; var slug: String; var title: String; var isActive: Bool }
    struct Pillar: Codable, Sendable { var id: String; var title: String; var funnels: [Funnel] }
    struct Pagination: Codable, Sendable { var limit: Int; var hasMore: Bool; var nextCursor: String? }
    struct Payload: Codable, Sendable { var pillars: [Pillar]; var pagination: Pagination }
    var success: Bool
    var data: Payload
}

let page: Data = {
    let pillars = (0..<5).map { pillar in
        CatalogPage.Pillar(id: "\(pillar)", title: "Pillar \(pillar)", funnels: (0..<10).map { index in
            CatalogPage.Funnel(id: "f\(pillar)-\(index)", slug: "funnel-\(pillar)-\(index)",
                               title: "Funnel assessment \(pillar)-\(index)", isActive: index % 3 != 0)
        })
    }
    let value = CatalogPage(success: true, data: .init(pillars: pillars, pagination: .init(limit: 50, hasMore: true,
                                                                                         nextCursor: "eyJ0aXRsZSI6IngifQ==")))
    return (try? JSONEncoder().encode(value)) ?? Data()
}()

let request = APIRequest<CatalogPage>(path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "50")])

func quietEnvironment() -> CacheEnvironment {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    return CacheEnvironment(logger: logger, cachesDirectory: FileManager.default.temporaryDirectory
        .appendingPathComponent("APICoreBench-\(UUID().uuidString)"))
}

/// A local server answering the catalog with an ETag; `If-None-Match` gets a 304.
func startServer() async throws -> (URL, ServiceGroup) {
    let router = Router()
    router.get("api/funnels/catalog") { request, _ -> Response in
        let headers: HTTPFields = [.eTag: "\"funnels:v1\"", .cacheControl: "no-cache", .contentType: "application/json"]
        if request.headers[.ifNoneMatch] == "\"funnels:v1\"" {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: page)))
    }
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "bench-server")
    logger.logLevel = .critical
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    Task { try await group.run() }
    var iterator = ports.makeAsyncIterator()
    let port = await iterator.next() ?? 0
    return (URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"), group)
}

/// A client whose memory already holds a fresh catalog page; signed in, the entry is the user's own (the
/// response is `private`) and every read checks the user.
func primedClient(signedIn: Bool = false) async throws -> RESTClient {
    let transport = RecordingTransport()
    transport.stub(.get, "/api/funnels/catalog", status: 200,
                   headerFields: [.cacheControl: signedIn ? "private, max-age=86400" : "max-age=86400"], body: page)
    let client = RESTClient(configuration: .init(
        baseURL: URL(string: "https://api.example.com")!, transport: transport, environment: quietEnvironment(),
        tokenProvider: signedIn ? StaticTokenProvider(Credentials(accessToken: "token", userId: "user-1")) : nil))
    _ = try await client.send(request)
    return client
}

/// Counts the bytes of every response that crosses the wire: the status line, the header fields and the body.
final class WireBytes: HTTPTransport {
    private let base = URLSessionTransport()
    private let total = Locked(0)

    var bytes: Int { total.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let response = try await base.send(request)
        let headerBytes = response.headerFields.reduce(17) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        total.withLock { $0 += headerBytes + response.body.count }
        return response
    }
}

let benchmarks: @Sendable () -> Void = {
    graphQLBenchmarks()
    contactsMemoryBenchmarks()
    recordStoreMergeBenchmarks()
    jsonBenchmarks()
    budgetBenchmarks()
    mutationQueueBenchmarks()
    allGrowthBenchmarks()
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))

    // MARK: Cache hit against plain decoding

    Benchmark("REST cache hit: RESTClient.send, fresh in memory", configuration: fast) { (benchmark: Benchmark, client: RESTClient) in
        for _ in benchmark.scaledIterations {
            blackHole(try await client.send(request).value)
        }
    } setup: {
        try await primedClient()
    }

    Benchmark("REST cache hit: RESTClient.send, fresh in memory, signed in", configuration: fast) {
        (benchmark: Benchmark, client: RESTClient) in
        for _ in benchmark.scaledIterations {
            blackHole(try await client.send(request).value)
        }
    } setup: {
        try await primedClient(signedIn: true)
    }

    Benchmark("REST cache hit: RESTClient.send, raw bytes (the cache path alone)", configuration: fast) {
        (benchmark: Benchmark, client: RESTClient) in
        let raw = APIRequest<Data>(path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "50")])
        for _ in benchmark.scaledIterations {
            blackHole(try await client.send(raw).value)
        }
    } setup: {
        try await primedClient()
    }

    Benchmark("REST cache hit: JSONDecoder alone (baseline)", configuration: fast) { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(CatalogPage.self, from: page))
        }
    }

    // MARK: 304 against 200 from a local server

    // Each also reports the response bytes that crossed the wire per request (status line, header fields
    // and body), counted by the transport: the per-304 saving is the difference.
    let wireBytes = BenchmarkMetric.custom("response bytes on the wire per request", polarity: .prefersSmaller, useScalingFactor: false)
    let network = Benchmark.Configuration(metrics: [.wallClock, .throughput, wireBytes], maxDuration: .seconds(5), maxIterations: 5_000)

    Benchmark("REST from local server: full 200 (\(page.count) body bytes)", configuration: network) {
        (benchmark: Benchmark, setup: (RESTClient, WireBytes, ServiceGroup)) in
        let before = setup.1.bytes
        for _ in benchmark.scaledIterations {
            blackHole(try await setup.0.send(request, policy: .fetchIgnoringCacheData).value)
        }
        benchmark.measurement(wireBytes, (setup.1.bytes - before) / max(1, benchmark.scaledIterations.count))
    } setup: {
        let (url, group) = try await startServer()
        let wire = WireBytes()
        return (RESTClient(configuration: .init(baseURL: url, transport: wire, environment: quietEnvironment())), wire, group)
    }

    Benchmark("REST from local server: 304 revalidation (0 body bytes)", configuration: network) {
        (benchmark: Benchmark, setup: (RESTClient, WireBytes, ServiceGroup)) in
        let before = setup.1.bytes
        for _ in benchmark.scaledIterations {
            let response = try await setup.0.send(request)
            guard response.source == .revalidated else { fatalError("expected a 304 revalidation") }
            blackHole(response.value)
        }
        benchmark.measurement(wireBytes, (setup.1.bytes - before) / max(1, benchmark.scaledIterations.count))
    } setup: {
        let (url, group) = try await startServer()
        let wire = WireBytes()
        let client = RESTClient(configuration: .init(baseURL: url, transport: wire, environment: quietEnvironment()))
        _ = try await client.send(request)
        return (client, wire, group)
    }
}
