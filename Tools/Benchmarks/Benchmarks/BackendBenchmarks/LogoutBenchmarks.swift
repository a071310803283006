import APICore
import APICoreGraphQL
import APICoreREST
import Benchmark
import CacheKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import ReferenceBackend

// The whole app's logout, as a user triggers it: the app's Composition (every kit, one unified cache
// manager, the GraphQL store in SQLite) signed in against the reference backend over real HTTP, every
// participant holding data (the HTTP cache in memory and on disk, the normalized store, CatalogKit's
// pages, AccountsKit's accounts, ChatHistoryKit's caches, the session): 8,000 REST responses of 5.5 KB,
// 2,000 records, about 60 MB on disk in all (the benchmark reports the entries and bytes). Measured:
// `Composition.logOut()`, from the tap to a signed-out app with every cache
// unreachable (the server is told, every participant cleared, the token deleted).

/// The bulk of the HTTP cache: `GET /api/bulk/<n>` answered here (a 5.5 KB JSON body, cacheable for an
/// hour, kept on disk too); everything else goes to the reference backend.
struct BulkTransport: HTTPTransport {
    let backend: any HTTPTransport
    static let body = Data(("{\"items\":\"" + String(repeating: "x", count: 5_480) + "\"}").utf8)

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        guard request.url.path.hasPrefix("/api/bulk/") else { return try await backend.send(request) }
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "max-age=3600"
        return TransportResponse(status: 200, headerFields: fields, body: Self.body)
    }
}

/// Transactions of one account, written into the normalized store (keyed by AccountsKit's provider).
struct BulkTransactionsQuery: GraphQLQuery {
    static let document = """
        query BulkTransactions { account(id: "bulk") { id transactions { id accountId amount description } } }
        """
}

/// The app, signed in, with every participant holding data.
func filledApp(restEntries: Int, records: Int) async throws -> (Composition, ReferenceBackend, URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("LogoutBench-\(UUID().uuidString)")
    var logger = Logger(label: "bench-logout")
    logger.logLevel = .critical
    let backend = try await ReferenceBackend.start(
        .init(databaseURL: directory.appendingPathComponent("backend.sqlite"), logger: logger))
    let caches = directory.appendingPathComponent("caches")
    let app = try Composition(
        baseURL: backend.baseURL, cachesDirectory: caches,
        transport: BulkTransport(backend: URLSessionTransport()), retry: .none, logger: logger,
        graphQLStore: try SQLiteRecordStore(url: caches.appendingPathComponent("graphql/records.sqlite"), byteLimit: 50 * 1024 * 1024))
    try await app.signIn(email: "alice@example.com", password: "Password1")
    // What the kits cache through real traffic: catalog pages and details, accounts, the chat history.
    _ = try await app.catalog.allPages(limit: 10)
    _ = try await app.accounts.dashboard()
    _ = try? await app.chat.syncFromServer()
    _ = try? await app.chat.todaysPrediction()
    // The bulk: REST responses through the HTTP cache, and records in the normalized store.
    for index in 0..<restEntries {
        let request = APIRequest<Data>(
            path: "/api/bulk/\(index)", cacheable: Cacheable(key: "bulk.\(index)", isUplifted: true), feature: "bulk"
        ) { $0 }
        _ = try await app.rest.send(request)
    }
    let transactions: [JSONValue] = (0..<records).map { index in
        .object([
            "__typename": "Transaction", "id": .string("bulk-\(index)"), "accountId": "bulk", "amount": .int(index),
            "description": .string("Card payment \(index) at a merchant with a long name"),
        ])
    }
    _ = try app.graphQL.writeLocal(
        BulkTransactionsQuery(),
        data: ["account": ["__typename": "Account", "id": "bulk", "transactions": .array(transactions)]])
    return (app, backend, directory)
}

func logoutBenchmarks() {
    let entriesMetric = BenchmarkMetric.custom("entries before logout", polarity: .prefersLarger, useScalingFactor: false)
    let diskMetric = BenchmarkMetric.custom("MB on disk before logout", polarity: .prefersLarger, useScalingFactor: false)
    Benchmark(
        "Logout, whole app: every participant, 8,000 REST responses + 2,000 records + the kits' data, ~60 MB on disk",
        configuration: .init(metrics: [.wallClock, entriesMetric, diskMetric], maxDuration: .seconds(300), maxIterations: 7)
    ) { benchmark in
        let (app, backend, directory) = try await filledApp(restEntries: 8_000, records: 2_000)
        let statistics = await app.unified.statistics()
        benchmark.measurement(entriesMetric, statistics.reduce(0) { $0 + $1.usage.count })
        benchmark.measurement(diskMetric, directorySize(app.environment.cachesDirectory) / 1_000_000)
        benchmark.startMeasurement()
        let (report, _) = await app.logOut()
        benchmark.stopMeasurement()
        precondition(report.isComplete, "logout left \(report.failed)")
        DiscardedFiles.waitForDeletions()
        await backend.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Bytes of every regular file below `directory`.
func directorySize(_ directory: URL) -> Int {
    guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey]) else { return 0 }
    return files.compactMap { ($0 as? URL).flatMap { try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize } }.reduce(0, +)
}
