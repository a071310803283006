import APICore
import Benchmark
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend

// The reference backend over real HTTP on 127.0.0.1 (its performance figures): the token check
// (REQ AUTH-3, `GET /auth/validate`, no database read) under a load of 2,000 requests, one at a
// time and eight at a time; and a catalog page as a full 200 against a 304 for a matching ETag.

/// A started backend, a signed-in token, and a plain transport (no cache, no retries).
struct Running: Sendable {
    let backend: ReferenceBackend
    let token: String
    let transport = URLSessionTransport()
    let directory: URL

    static func start() async throws -> Running {
        let directory = scratchDirectory("BackendBench")
        var logger = Logger(label: "bench-backend")
        logger.logLevel = .critical
        let backend = try await startBackend(.init(databaseURL: directory.appendingPathComponent("backend.sqlite"),
                                                             logger: logger))
        let login = try await URLSessionTransport().send(TransportRequest(
            method: .post, url: backend.baseURL.appendingPathComponent("auth/login"),
            headerFields: [.contentType: "application/json"],
            body: Data(#"{"email":"alice@example.com","password":"Password1"}"#.utf8)))
        guard let token = try JSONValue.parse(login.body)["data"]?["token"]?.stringValue else {
            throw BenchmarkSetupError.noToken
        }
        return Running(backend: backend, token: token, directory: directory)
    }

    func get(_ path: String, _ fields: HTTPFieldsBuilder = .init()) async throws -> TransportResponse {
        guard let url = URL(string: backend.baseURL.absoluteString + path) else { throw BenchmarkSetupError.badURL }
        return try await transport.send(TransportRequest(method: .get, url: url, headerFields: fields.fields))
    }

    func validate() async throws {
        let response = try await get("/auth/validate", .init(authorization: "Bearer \(token)"))
        guard response.status == 200 else { throw BenchmarkSetupError.status(response.status) }
    }
}

/// The few header fields these benchmarks send.
struct HTTPFieldsBuilder {
    var authorization: String?
    var ifNoneMatch: String?

    var fields: HTTPFields {
        var fields = HTTPFields()
        if let authorization { fields[.authorization] = authorization }
        if let ifNoneMatch { fields[.ifNoneMatch] = ifNoneMatch }
        return fields
    }
}

enum BenchmarkSetupError: Error {
    case noToken, badURL, status(Int), noFunnels, sqlite(String)
}

let catalogPage = "/api/funnels/catalog?limit=50"

let benchmarks: @Sendable () -> Void = {
    Benchmark.teardown = { await removeWhatTheBenchmarkLeft() }
    let load = Benchmark.Configuration(metrics: [.wallClock, .throughput], maxDuration: .seconds(30), maxIterations: 2_000)

    Benchmark("Backend GET /auth/validate, 2,000 requests one at a time", configuration: load) {
        (benchmark: Benchmark, running: Running) in
        for _ in benchmark.scaledIterations {
            try await running.validate()
        }
    } setup: {
        try await Running.start()
    }

    Benchmark("Backend GET /auth/validate, 8 at a time (time per batch of 8)",
              configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(30), maxIterations: 250)) {
        (benchmark: Benchmark, running: Running) in
        for _ in benchmark.scaledIterations {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await running.validate() } }
                try await group.waitForAll()
            }
        }
    } setup: {
        try await Running.start()
    }

    Benchmark("Backend catalog page (limit 50): full 200", configuration: load) { (benchmark: Benchmark, running: Running) in
        for _ in benchmark.scaledIterations {
            let response = try await running.get(catalogPage)
            guard response.status == 200 else { throw BenchmarkSetupError.status(response.status) }
            blackHole(response.body)
        }
    } setup: {
        try await Running.start()
    }

    Benchmark("Backend catalog page (limit 50): 304 for a matching If-None-Match", configuration: load) {
        (benchmark: Benchmark, setup: (Running, String)) in
        for _ in benchmark.scaledIterations {
            let response = try await setup.0.get(catalogPage, .init(ifNoneMatch: setup.1))
            guard response.status == 304 else { throw BenchmarkSetupError.status(response.status) }
            blackHole(response.body)
        }
    } setup: {
        let running = try await Running.start()
        let first = try await running.get(catalogPage)
        guard let eTag = first.headerFields[.eTag] else { throw BenchmarkSetupError.status(first.status) }
        return (running, eTag)
    }

    catalogSessionBenchmarks()
    catalogOrderBenchmarks()
    chatCacheBenchmarks()
    contactsSyncBenchmarks()
    contactsScaleBenchmarks()
    fullSyncInTurnBenchmarks()
    logoutBenchmarks()
    pinnedTransportBenchmarks()
    proxyTransportBenchmarks()
    relaunchBenchmarks()
    relaunchInTurnBenchmarks()
    launchWithQueueBenchmarks()
}
