import APICore
import APICoreGraphQL
import Benchmark
import CacheKit
import Foundation

// The memory limits, side by side in one run:
// - the in-memory record store's write with room to spare, against the same write into a store
//   whose limit makes it evict on every write (the cost of the limit when it bites), and the
//   allocator bytes it holds after 200 such writes (bounded) against 200 into an unlimited store;
// - the app-wide budget: enforceBudget over five participants (memory and disk) holding ~60 MB,
//   trimmed to 50 MB, against a call that finds everyone within the budget.

/// Transactions 1,000 objects at a time under distinct ids (`offset`), so each write adds records.
func transactionsData(offset: Int) throws -> [String: JSONValue] {
    let text = String(decoding: transactionsBody(1_000), as: UTF8.self)
        .replacingOccurrences(of: "\"id\":\"t", with: "\"id\":\"t\(offset)-")
    return try parsedData(Data(text.utf8))
}

func budgetBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))
    let operationAndData = { () throws -> (GraphQLOperation, [[String: JSONValue]]) in
        (try GraphQLOperation(TransactionsQuery.document), try (0..<8).map { try transactionsData(offset: $0) })
    }

    Benchmark("Record store write 1,000 objects: within the limit (baseline)", configuration: fast) {
        (benchmark: Benchmark, setup: (GraphQLOperation, [[String: JSONValue]])) in
        let cache = NormalizedCache(store: InMemoryRecordStore(limits: .init(byteLimit: 1 << 40, recordLimit: 1 << 40))) { _ in BenchKeys() }
        for (index, _) in benchmark.scaledIterations.enumerated() {
            blackHole(try cache.write(setup.1[index % setup.1.count], for: setup.0, variables: ["id": "1"]))
        }
    } setup: {
        try operationAndData()
    }

    Benchmark("Record store write 1,000 objects: evicting on every write (limit 1.5 writes)", configuration: fast) {
        (benchmark: Benchmark, setup: (GraphQLOperation, [[String: JSONValue]])) in
        let probe = InMemoryRecordStore()
        try NormalizedCache(store: probe) { _ in BenchKeys() }.write(setup.1[0], for: setup.0, variables: ["id": "1"])
        let limit = probe.usage().bytes * 3 / 2
        let store = InMemoryRecordStore(limits: .init(byteLimit: limit))
        let cache = NormalizedCache(store: store) { _ in BenchKeys() }
        for (index, _) in benchmark.scaledIterations.enumerated() {
            blackHole(try cache.write(setup.1[index % setup.1.count], for: setup.0, variables: ["id": "1"]))
        }
        guard store.usage().bytes <= limit else { fatalError("over the limit") }
    } setup: {
        try operationAndData()
    }

    let memory = Benchmark.Configuration(metrics: [.custom("MB held after 200 writes of 1,000 objects")], maxIterations: 3)
    for (label, limits) in [("unlimited", InMemoryRecordStore.Limits(byteLimit: 1 << 40, recordLimit: 1 << 40)),
                            ("default limits (20 MB, 100k records)", InMemoryRecordStore.Limits())] {
        Benchmark("Record store memory: \(label)", configuration: memory) { benchmark in
            let operation = try GraphQLOperation(TransactionsQuery.document)
            let before = allocatedBytes()
            let store = InMemoryRecordStore(limits: limits)
            let cache = NormalizedCache(store: store) { _ in BenchKeys() }
            for offset in 0..<200 { try cache.write(try transactionsData(offset: offset), for: operation, variables: ["id": "1"]) }
            benchmark.measurement(.custom("MB held after 200 writes of 1,000 objects"), (allocatedBytes() - before) >> 20)
            blackHole(store)
        }
    }

    let budget = Benchmark.Configuration(metrics: [.wallClock, .custom("MB held after")], maxDuration: .seconds(20),
                                         maxIterations: 10)
    for (label, overBudget) in [("five participants at ~60 MB trimmed to 50 MB", true),
                                ("five participants within the budget (baseline)", false)] {
        Benchmark("enforceBudget: \(label)", configuration: budget) { benchmark in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("BudgetBench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let environment = CacheEnvironment(logger: quietEnvironment().logger, cachesDirectory: directory)
            let unified = UnifiedCacheManager(timeouts: environment.timeouts)
            let value = String(repeating: "x", count: 12 * 1024)
            for feature in 0..<5 {
                let manager = try CacheManager<String>(feature: "feature\(feature)", environment: environment,
                                                       persistence: .disk(), defaultTimeout: .never)
                unified.register(manager)
                // ~6 MB on disk and ~6 MB in memory per participant: 60 MB in all.
                for index in 0..<(overBudget ? 500 : 100) {
                    try await manager.set(value, forKey: "k\(index)", scope: .user("u"))
                }
            }
            benchmark.startMeasurement()
            let report = await unified.enforceBudget()
            benchmark.stopMeasurement()
            guard report.isWithinBudget else { fatalError("over budget after enforcement") }
            benchmark.measurement(.custom("MB held after"), report.totalAfter >> 20)
        }
    }
}
