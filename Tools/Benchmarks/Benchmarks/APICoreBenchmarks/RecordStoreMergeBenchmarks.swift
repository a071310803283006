import APICore
import APICoreGraphQL
import Benchmark
import CacheKit
import Foundation
import GRDB

// SQLiteRecordStore's merge (the write of a fetched query's records, crash-safe) against a raw GRDB insert
// of the same number of rows and bytes in one transaction: in a file with the same settings (write-ahead
// log, synchronous=NORMAL), and in GRDB's default mode (rollback journal), side by side in one run.

/// The records of the 100- or 1,000-object response, keyed as the client keys them.
func normalizedRecords(_ count: Int) throws -> [String: NormalizedRecord] {
    let store = InMemoryRecordStore()
    try NormalizedCache(store: store) { _ in BenchKeys() }
        .write(try parsedData(transactionsBody(count)), for: try GraphQLOperation(TransactionsQuery.document), variables: ["id": "1"])
    let keys = ["QUERY_ROOT", "Account:1"] + (0..<count).map { "Transaction:t\($0)" } + (0..<10).map { "Merchant:m\($0)" }
    return Dictionary(uniqueKeysWithValues: keys.compactMap { key in store.record(forKey: key).map { (key, $0) } })
}

/// A raw table of (key, blob) rows with the record sizes of `records`.
func rawInsertFixture(_ records: [String: NormalizedRecord], wal: Bool) throws -> (DatabaseQueue, [(String, Data)]) {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("RawGRDB-\(UUID().uuidString).sqlite")
    let queue = try DatabaseQueue(path: url.path)
    if wal {
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
    }
    try queue.write { db in try db.execute(sql: "CREATE TABLE record (key TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL)") }
    let store = InMemoryRecordStore()
    try store.merge(records)
    let rows = store.describeRecords().map { ($0.key, Data(repeating: 7, count: max(0, $0.bytes - $0.key.utf8.count))) }
    return (queue, rows)
}

func recordStoreMergeBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))
    for count in [100, 1_000] {
        let label = "Record store merge, \(count) objects (\(count + 12) records)"
        Benchmark("\(label): SQLiteRecordStore.merge", configuration: fast) {
            (benchmark: Benchmark, setup: (SQLiteRecordStore, [String: NormalizedRecord])) in
            for _ in benchmark.scaledIterations {
                blackHole(try setup.0.merge(setup.1))
            }
        } setup: {
            (try temporarySQLiteStore(), try normalizedRecords(count))
        }

        for wal in [true, false] {
            Benchmark("\(label): raw GRDB insert of the same bytes, " + (wal ? "WAL + NORMAL (baseline)" : "rollback journal"),
                      configuration: fast) { (benchmark: Benchmark, setup: (DatabaseQueue, [(String, Data)])) in
                for _ in benchmark.scaledIterations {
                    try setup.0.write { db in
                        for (key, body) in setup.1 {
                            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (key, body) VALUES (?, ?)")
                                .execute(arguments: [key, body])
                        }
                    }
                }
            } setup: {
                try rawInsertFixture(try normalizedRecords(count), wal: wal)
            }
        }
    }
}
