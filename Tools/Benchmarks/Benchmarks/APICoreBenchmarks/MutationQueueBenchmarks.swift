import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import Foundation
import GRDB
import HTTPTypes

// The mutation queue, side by side in one run:
// - enqueue (durable: on disk, WAL, synchronous=FULL, when it returns) against a raw GRDB insert of
//   the same bytes into a table with the same settings;
// - replay of 100 queued REST mutations (read, send with the idempotency key, delete, one at a time)
//   against sending the same 100 requests with RESTClient and no queue. The transport answers from
//   memory, so the figures are the queue's own cost, not the network's.

func queueDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("QueueBench-\(UUID().uuidString)")
}

let queueCredentials = Credentials(accessToken: "token", userId: "bench-user")
let queuedBody = Data(#"{"slug":"sleep-quality-check","favorite":true}"#.utf8)

func benchQueue(directory: URL) -> (MutationQueue, RESTClient) {
    let transport = RecordingTransport()
    transport.stub(.put, "/api/favorites", status: 200, body: Data(#"{"success":true}"#.utf8))
    let rest = RESTClient(configuration: .init(baseURL: URL(fileURLWithPath: "/").deletingLastPathComponent(),
                                               transport: transport, environment: quietEnvironment(),
                                               tokenProvider: StaticTokenProvider(queueCredentials), retry: .none))
    let queue = MutationQueue(configuration: .init(directory: directory, tokenProvider: StaticTokenProvider(queueCredentials),
                                                   rest: rest))
    return (queue, rest)
}

let favoriteRequest = QueuedRequest.rest(method: .put, path: "http://bench.test/api/favorites", headerFields: [:], body: queuedBody)

func mutationQueueBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput], maxDuration: .seconds(3))

    Benchmark("Mutation queue: enqueue one (on disk when it returns)", configuration: fast) {
        (benchmark: Benchmark, queue: MutationQueue) in
        for _ in benchmark.scaledIterations {
            blackHole(try await queue.enqueue(favoriteRequest, name: "AddFavorite"))
        }
    } setup: {
        benchQueue(directory: queueDirectory()).0
    }

    Benchmark("Mutation queue: raw GRDB insert of the same bytes, WAL + synchronous=FULL (baseline)", configuration: fast) {
        (benchmark: Benchmark, database: DatabaseQueue) in
        for _ in benchmark.scaledIterations {
            try database.write { db in
                try db.execute(sql: "INSERT INTO mutation (name, idempotencyKey, request, enqueuedAt) VALUES (?, ?, ?, ?)",
                               arguments: ["AddFavorite", UUID().uuidString, queuedBody, Date().timeIntervalSince1970])
            }
        }
    } setup: {
        let directory = queueDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let database = try DatabaseQueue(path: directory.appendingPathComponent("raw.sqlite").path, configuration: configuration)
        try database.writeWithoutTransaction { db in _ = try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE mutation (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
                    idempotencyKey TEXT NOT NULL UNIQUE, request BLOB NOT NULL, enqueuedAt DOUBLE NOT NULL)
                """)
        }
        return database
    }

    // One replay per run: the queue is filled before the measurement starts.
    let once = Benchmark.Configuration(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 40)
    Benchmark("Mutation queue: replay 100 queued PUTs", configuration: once) { benchmark in
        let (queue, _) = benchQueue(directory: queueDirectory())
        for _ in 0..<100 { _ = try await queue.enqueue(favoriteRequest, name: "AddFavorite") }
        benchmark.startMeasurement()
        let report = await queue.replay()
        benchmark.stopMeasurement()
        precondition(report.sent == 100, "replay sent \(report.sent)")
    }

    Benchmark("Mutation queue: the same 100 PUTs through RESTClient, no queue (baseline)", configuration: once) {
        (benchmark: Benchmark, rest: RESTClient) in
        for _ in 0..<100 {
            let request = APIRequest<Data>(method: .put, path: "http://bench.test/api/favorites", body: queuedBody,
                                           idempotencyKey: UUID().uuidString)
            blackHole(try await rest.send(request))
        }
    } setup: {
        benchQueue(directory: queueDirectory()).1
    }
}
