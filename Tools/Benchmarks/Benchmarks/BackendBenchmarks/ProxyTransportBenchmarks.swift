import APICore
import APICoreHTTPClient
import Benchmark
import CacheKit
import Foundation
import Hummingbird
import Logging
import MIBCore
import NIOCore
import ReferenceBackend

// Issue 33: `mib proxy`'s cache miss and cache hit, through each upstream transport side by side: URLSession
// (FoundationNetworking, libcurl; the proxy's transport before) and HTTPClientTransport (AsyncHTTPClient,
// its transport on Linux now). Each iteration is 100 sequential GETs from one AsyncHTTPClient caller; a miss
// asks for a URL never asked before (its own query), a hit for one stored in setup.

/// An origin serving a 1 KB cacheable JSON body, the proxy in front of it, and a caller.
struct ProxyUnderTest: Sendable {
    let origin: LocalServer
    let proxy: CacheProxy
    let caller = HTTPClientTransport()
    let counter = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }

    static func start(upstream: any HTTPTransport) async throws -> ProxyUnderTest {
        let body = ByteBuffer(string: "{\"items\":\"" + String(repeating: "x", count: 1_000) + "\"}")
        let router = Router()
        router.get("item") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
                body: .init(byteBuffer: body))
        }
        var logger = Logger(label: "bench-proxy")
        logger.logLevel = .critical
        let origin = try await LocalServer.start(responder: router.buildResponder(), port: 0, logger: logger)
        let directory = scratchDirectory("ProxyBench")
        let proxy = try await CacheProxy.start(
            .init(
                upstream: origin.baseURL, environment: CacheEnvironment(logger: logger, cachesDirectory: directory),
                transport: upstream))
        let running = ProxyUnderTest(origin: origin, proxy: proxy)
        try await running.get("/item?stored")
        return running
    }

    func get(_ pathAndQuery: String) async throws {
        guard let url = URL(string: proxy.baseURL.absoluteString + pathAndQuery) else { throw BenchmarkSetupError.badURL }
        let response = try await caller.send(TransportRequest(method: .get, url: url))
        guard response.status == 200 else { throw BenchmarkSetupError.status(response.status) }
    }
}

func proxyTransportBenchmarks() {
    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(15), maxIterations: 40)
    let transports: [(String, @Sendable () -> any HTTPTransport)] = [
        ("URLSession (before)", { URLSessionTransport(followsRedirects: false) }),
        ("HTTPClientTransport (after)", { HTTPClientTransport() }),
    ]
    for (name, make) in transports {
        Benchmark("mib proxy, 100 cache misses: " + name, configuration: configuration) {
            (benchmark: Benchmark, proxy: ProxyUnderTest) in
            for _ in benchmark.scaledIterations {
                for _ in 0..<100 { try await proxy.get("/item?miss=\(proxy.counter.next())") }
            }
        } setup: {
            try await ProxyUnderTest.start(upstream: make())
        }
        Benchmark("mib proxy, 100 cache hits: " + name, configuration: configuration) {
            (benchmark: Benchmark, proxy: ProxyUnderTest) in
            for _ in benchmark.scaledIterations {
                for _ in 0..<100 { try await proxy.get("/item?stored") }
            }
        } setup: {
            try await ProxyUnderTest.start(upstream: make())
        }
    }
}
