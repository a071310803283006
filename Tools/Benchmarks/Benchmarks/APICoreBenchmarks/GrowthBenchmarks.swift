import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import Foundation
import HTTPTypes

// How each cost grows with the data: for every store and cache, a hit, a write, an eviction step and a clear
// with 1,000, 10,000 and 100,000 entries, in one run (`--filter "Growth.*"`). Keys are read and written in a
// scattered order (index × a prime), so no size profits from neighbours staying hot.
// - hit: a read of an entry that is there;
// - write: a replacement of an entry that is there (nothing evicted);
// - eviction step: a new entry written into a store full at its limit, which evicts one to make room;
// - clear: everything removed (the store filled again before each measurement).

/// The sizes every row is measured at.
let growthSizes = [1_000, 10_000, 100_000]

/// One store under test, filled with `count` entries.
protocol GrowthSubject: Sendable {
    /// A store holding entries `0..<count`; when `full`, its limit is `count` entries, so a new one evicts.
    static func make(count: Int, full: Bool) async throws -> Self
    /// Reads entry `index`, which is there.
    func hit(_ index: Int) async throws
    /// Writes entry `index`: a replacement below `count`, a new entry at or above it.
    func write(_ index: Int) async throws
    /// Removes everything.
    func clear() async throws
}

/// The key of entry `index`, as an app names one.
func growthKey(_ index: Int) -> String { "feature:item:\(index)" }

/// `count` keys made once, so no measurement pays for formatting one.
func growthKeys(_ count: Int) -> [String] { (0..<2 * count).map(growthKey) }

/// A scattered walk over `0..<count`: every index once per `count` steps, neighbours far apart.
struct Scattered {
    let count: Int
    var step = 0
    mutating func next() -> Int {
        defer { step &+= 1 }
        return (step % count) &* 7_919 % count
    }
}

func growthDirectory(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("Growth-\(name)-\(UUID().uuidString)", isDirectory: true)
}

/// The origin the HTTP cache's requests name (answered in memory).
let growthOrigin = URL(string: "https://growth.example.com") ?? URL(fileURLWithPath: "/")

let growthValue = Data(repeating: 0x5A, count: 256)
let growthForever = CacheEntryMetadata(storedAt: Date(), expiresAt: nil, timeout: .never, scope: .user("growth-user"))

// MARK: The benchmarks

func growthBenchmarks<Subject: GrowthSubject>(_ subject: Subject.Type, _ name: String, evicts: Bool = true) {
    let perOperation = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(2), maxIterations: 20_000)
    let once = Benchmark.Configuration(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 5)
    for count in growthSizes {
        let size = count == 100_000 ? "100,000" : count == 10_000 ? "10,000" : "1,000"
        Benchmark("Growth \(name) hit, \(size) entries", configuration: perOperation) { (benchmark: Benchmark, store: Subject) in
            var walk = Scattered(count: count)
            for _ in benchmark.scaledIterations { try await store.hit(walk.next()) }
        } setup: {
            try await Subject.make(count: count, full: false)
        }
        Benchmark("Growth \(name) write, \(size) entries", configuration: perOperation) { (benchmark: Benchmark, store: Subject) in
            var walk = Scattered(count: count)
            for _ in benchmark.scaledIterations { try await store.write(walk.next()) }
        } setup: {
            try await Subject.make(count: count, full: false)
        }
        if evicts {
            // New keys in order over twice the limit: each was evicted since it was last written, so each write evicts one.
            Benchmark("Growth \(name) eviction step, \(size) entries", configuration: perOperation) {
                (benchmark: Benchmark, store: Subject) in
                var next = count
                for _ in benchmark.scaledIterations {
                    try await store.write(next)
                    next = (next + 1) % (2 * count)
                }
            } setup: {
                try await Subject.make(count: count, full: true)
            }
        }
        Benchmark("Growth \(name) clear, \(size) entries", configuration: once) { benchmark in
            let store = try await Subject.make(count: count, full: false)
            benchmark.startMeasurement()
            try await store.clear()
            benchmark.stopMeasurement()
        }
    }
}

func allGrowthBenchmarks() {
    growthBenchmarks(DictionarySubject.self, "dictionary (baseline)", evicts: false)
    growthBenchmarks(MemoryStoreSubject.self, "MemoryStore")
    growthBenchmarks(DiskStoreSubject.self, "DiskStore")
    growthBenchmarks(HTTPCacheSubject.self, "HTTP cache")
    growthBenchmarks(InMemoryRecordStoreSubject.self, "normalized cache, in memory")
    growthBenchmarks(SQLiteRecordStoreSubject.self, "normalized cache, SQLite")
    growthBenchmarks(MutationQueueSubject.self, "mutation queue", evicts: false)
    growthBenchmarks(ImageCacheSubject.self, "image cache")
    growthBenchmarks(SearchIndexSubject.self, "search index", evicts: false)
}
