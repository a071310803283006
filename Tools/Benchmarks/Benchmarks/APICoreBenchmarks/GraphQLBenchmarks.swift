import APICore
import APICoreGraphQL
import APICoreTesting
import Benchmark
import CacheKit
import Foundation
import HeapUsage

// Side by side, in one run, for a response of 100 objects and one of 1,000: normalizing and
// writing it, reading the query back through GraphQLClient.fetch from the in-memory and the SQLite
// store, and JSONDecoder decoding the same response bytes into Codable structs (the baseline).

/// An account with `count` transactions, each an object keyed `Transaction:<id>` with a nested
/// merchant keyed `Merchant:<id>` (so `count` transactions make about `count` + 10 objects).
struct TransactionsResponse: Codable, Sendable {
    struct Merchant: Codable, Sendable { var __typename: String; var id: String; var name: String }
    struct Transaction: Codable, Sendable {
        var __typename: String; var id: String; var amount: Int; var description: String; var date: String
        var pending: Bool; var merchant: Merchant
    }
    struct Account: Codable, Sendable {
        var __typename: String; var id: String; var balance: Int; var transactions: [Transaction]
    }
    struct Payload: Codable, Sendable { var __typename: String; var account: Account }
    var data: Payload
}

/// What a kit decodes the query into (as AccountsKit does): the selected fields, no typenames. The typed
/// baseline decodes the same structs from the response bytes with `JSONDecoder`.
struct TransactionsData: Decodable, Sendable {
    struct Merchant: Decodable, Sendable { var id: String; var name: String }
    struct Transaction: Decodable, Sendable {
        var id: String; var amount: Int; var description: String; var date: String; var pending: Bool; var merchant: Merchant
    }
    struct Account: Decodable, Sendable { var id: String; var balance: Int; var transactions: [Transaction] }
    var account: Account
}

/// The response envelope around ``TransactionsData``, for the typed baseline.
struct TransactionsEnvelope: Decodable, Sendable { var data: TransactionsData }

struct TransactionsQuery: GraphQLQuery {
    static let document = """
        query Transactions($id: ID!) {
          account(id: $id) { id balance transactions { id amount description date pending merchant { id name } } }
        }
        """
    static let cacheTimeout = CacheTimeout.never
    var variables: [String: JSONValue] { ["id": "1"] }
}

struct BenchKeys: CacheKeyProvider {
    let typenames: Set<String> = ["Account", "Transaction", "Merchant"]
    func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
        object["id"]?.stringValue.map { NormalizedCacheKey("\(typename):\($0)") }
    }
}

struct BenchKit: FeatureKit {
    let name = "bench"
    func register(in registry: KitRegistry) throws(ContainerError) { try registry.addCacheKeyProvider(BenchKeys()) }
}

func transactionsBody(_ count: Int) -> Data {
    let transactions = (0..<count).map { index in
        TransactionsResponse.Transaction(
            __typename: "Transaction", id: "t\(index)", amount: -(index * 37 % 10_000), description: "Card payment \(index)",
            date: "2026-11-\(String(format: "%02d", index % 28 + 1))", pending: index % 9 == 0,
            merchant: .init(__typename: "Merchant", id: "m\(index % 10)", name: "Merchant \(index % 10)"))
    }
    let response = TransactionsResponse(data: .init(__typename: "Query", account: .init(
        __typename: "Account", id: "1", balance: 123_456, transactions: transactions)))
    return (try? JSONEncoder().encode(response)) ?? Data()
}

/// The response's `data`, parsed as the client parses it.
func parsedData(_ body: Data) throws -> [String: JSONValue] {
    guard case .object(let data)? = try JSONValue.parse(body)["data"] else { throw CancellationError() }
    return data
}

/// A client over `store`, whose transport answers the query with `body`.
func graphQLClient(_ body: Data, store: any NormalizedRecordStore) throws -> GraphQLClient {
    let transport = RecordingTransport()
    transport.stub(.post, "/graphql", status: 200, body: body)
    let environment = quietEnvironment()
    let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts))
    try container.install([BenchKit()])
    return GraphQLClient(configuration: .init(endpoint: URL(string: "https://api.example.com/graphql")!,
                                              transport: transport, environment: environment,
                                              container: container, store: store))
}

/// A client whose store (memory or SQLite) holds the response, fresh forever.
func primedGraphQLClient(_ body: Data, store: any NormalizedRecordStore) async throws -> GraphQLClient {
    let client = try graphQLClient(body, store: store)
    _ = try await client.fetch(TransactionsQuery())
    guard try await client.fetch(TransactionsQuery()).source == .cache else { fatalError("expected a cache hit") }
    return client
}

func temporarySQLiteStore(frontByteLimit: Int = 4 * 1024 * 1024) throws -> SQLiteRecordStore {
    try SQLiteRecordStore(url: FileManager.default.temporaryDirectory
        .appendingPathComponent("APICoreBench-\(UUID().uuidString)/records.sqlite"), byteLimit: 200 * 1024 * 1024,
                          frontByteLimit: frontByteLimit)
}

/// Bytes the allocator holds now, to size what the stores keep.
func allocatedBytes() -> Int { Int(heap_bytes_in_use()) }

func graphQLBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))
    for count in [100, 1_000] {
        let body = transactionsBody(count)
        let label = "GraphQL \(count) objects (\(body.count / 1024) KB)"

        Benchmark("\(label): JSONDecoder into Codable structs (baseline)", configuration: fast) { benchmark in
            let decoder = JSONDecoder()
            for _ in benchmark.scaledIterations {
                blackHole(try decoder.decode(TransactionsResponse.self, from: body))
            }
        }

        Benchmark("\(label): JSONDecoder into the kit's structs (typed baseline)", configuration: fast) { benchmark in
            let decoder = JSONDecoder()
            for _ in benchmark.scaledIterations {
                blackHole(try decoder.decode(TransactionsEnvelope.self, from: body))
            }
        }

        for (storeName, makeStore) in [
            ("in-memory store", { () throws -> any NormalizedRecordStore in InMemoryRecordStore() }),
            ("SQLite store", { () throws -> any NormalizedRecordStore in try temporarySQLiteStore() }),
        ] {
            Benchmark("\(label): typed read, fetch(_:as:) from the records (as AccountsKit reads), \(storeName)", configuration: fast) {
                (benchmark: Benchmark, client: GraphQLClient) in
                for _ in benchmark.scaledIterations {
                    let read = try await client.fetch(TransactionsQuery(), as: TransactionsData.self)
                    guard read.source == .cache else { fatalError("expected a cache hit") }
                    blackHole(read.value)
                }
            } setup: {
                try await primedGraphQLClient(body, store: try makeStore())
            }

            Benchmark("\(label): typed read, fetch then result.decode (tree + JSONValueDecoder), \(storeName)", configuration: fast) {
                (benchmark: Benchmark, client: GraphQLClient) in
                for _ in benchmark.scaledIterations {
                    blackHole(try await client.fetch(TransactionsQuery()).decode(TransactionsData.self))
                }
            } setup: {
                try await primedGraphQLClient(body, store: try makeStore())
            }
        }

        Benchmark("\(label): normalize and write, from the parsed response", configuration: fast) {
            (benchmark: Benchmark, setup: ([String: JSONValue], GraphQLOperation)) in
            for _ in benchmark.scaledIterations {
                let cache = NormalizedCache(store: InMemoryRecordStore()) { _ in BenchKeys() }
                blackHole(try cache.write(setup.0, for: setup.1, variables: ["id": "1"]))
            }
        } setup: {
            (try parsedData(body), try GraphQLOperation(TransactionsQuery.document))
        }

        Benchmark("\(label): parse the bytes, normalize and write", configuration: fast) {
            (benchmark: Benchmark, operation: GraphQLOperation) in
            for _ in benchmark.scaledIterations {
                let cache = NormalizedCache(store: InMemoryRecordStore()) { _ in BenchKeys() }
                blackHole(try cache.write(try parsedData(body), for: operation, variables: ["id": "1"]))
            }
        } setup: {
            try GraphQLOperation(TransactionsQuery.document)
        }

        Benchmark("\(label): GraphQLClient.fetch cache hit, in-memory store", configuration: fast) {
            (benchmark: Benchmark, client: GraphQLClient) in
            for _ in benchmark.scaledIterations {
                blackHole(try await client.fetch(TransactionsQuery()).data)
            }
        } setup: {
            try await primedGraphQLClient(body, store: InMemoryRecordStore())
        }

        Benchmark("\(label): GraphQLClient.fetch cache hit, SQLite store", configuration: fast) {
            (benchmark: Benchmark, client: GraphQLClient) in
            for _ in benchmark.scaledIterations {
                blackHole(try await client.fetch(TransactionsQuery()).data)
            }
        } setup: {
            try await primedGraphQLClient(body, store: try temporarySQLiteStore())
        }

        // The first read after a relaunch: a new store opened on the file (not measured), nothing in memory yet.
        Benchmark("\(label): GraphQLClient.fetch cache hit, SQLite store, first read after a relaunch",
                  configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 200)) {
            (benchmark: Benchmark, url: URL) in
            let client = try graphQLClient(body, store: try SQLiteRecordStore(url: url, byteLimit: 200 * 1024 * 1024))
            benchmark.startMeasurement()
            let read = try await client.fetch(TransactionsQuery(), policy: .returnCacheDataDontFetch)
            benchmark.stopMeasurement()
            blackHole(read.data)
        } setup: {
            let store = try temporarySQLiteStore()
            _ = try await primedGraphQLClient(body, store: store)
            return store.url
        }
    }

    // Memory: 50 stores each holding the 1,000-object response, against 50 times its JSON bytes
    // (bytes allocated and still held once the parsed responses are gone).
    let memory = Benchmark.Configuration(metrics: [.custom("normalized bytes per JSON byte (x100)")], maxIterations: 3)
    Benchmark("GraphQL 1000 objects: memory held by the in-memory store", configuration: memory) { benchmark in
        let body = transactionsBody(1_000)
        let operation = try GraphQLOperation(TransactionsQuery.document)
        var stores: [InMemoryRecordStore] = []
        let before = allocatedBytes()
        for _ in 0..<50 {
            let store = InMemoryRecordStore()
            // Parsed afresh each time, so the store's strings are its own.
            try NormalizedCache(store: store) { _ in BenchKeys() }.write(try parsedData(body), for: operation, variables: ["id": "1"])
            stores.append(store)
        }
        let held = allocatedBytes() - before
        blackHole(stores)
        benchmark.measurement(.custom("normalized bytes per JSON byte (x100)"), held * 100 / (50 * body.count))
    }
}
