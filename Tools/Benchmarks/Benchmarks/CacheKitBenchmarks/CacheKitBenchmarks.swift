import Benchmark
import CacheKit
import Foundation
import GRDB
import Prometheus
import Synchronization


// Side by side, in one run: MemoryStore against a Mutex-guarded Dictionary and NSCache (same keys,
// same values); DiskStore against a raw GRDB point read of the same row; clearAllCaches with 10,000
// entries in memory and 50 MB on disk; memory overhead per entry.

let keyCount = 10_000
let keys = (0..<keyCount).map { "catalog:page:\($0)" }
nonisolated(unsafe) let nsKeys = keys.map { NSString(string: $0) }
let value = Data(repeating: 7, count: 64)
nonisolated(unsafe) let nsValue = NSData(data: value)
let farFuture = CacheEntryMetadata(storedAt: Date(), expiresAt: Date().addingTimeInterval(86_400))

/// How a benchmark walks the keys: in order (the best case for a linked LRU, whose neighbours stay hot),
/// shuffled (every key equally likely, in no order), or Zipf-like (s = 1: a few keys most of the time, as
/// real screens do). Each trace holds 65,536 key indexes drawn with a fixed seed, so every run and every
/// contender reads the same sequence.
enum AccessOrder: String, CaseIterable {
    case inOrder = "in order"
    case shuffled = "shuffled"
    case zipf = "Zipf s=1"

    static let traceLength = 1 << 16

    var trace: [Int] {
        var random = SplitMix64(seed: 0x5EED)
        switch self {
        case .inOrder:
            return (0..<Self.traceLength).map { $0 % keyCount }
        case .shuffled:
            return (0..<Self.traceLength).map { _ in Int(random.next() % UInt64(keyCount)) }
        case .zipf:
            // Inverse CDF of Zipf(s = 1) over keyCount ranks; ranks are spread over the key space, so hot
            // keys are not neighbours in the store either.
            var cumulative: [Double] = []
            var sum = 0.0
            for rank in 1...keyCount {
                sum += 1 / Double(rank)
                cumulative.append(sum)
            }
            let spread = (0..<keyCount).map { ($0 &* 7_919) % keyCount }
            return (0..<Self.traceLength).map { _ in
                let target = Double(random.next() >> 11) / Double(1 << 53) * sum
                var low = 0
                var high = keyCount - 1
                while low < high {
                    let middle = (low + high) / 2
                    if cumulative[middle] < target { low = middle + 1 } else { high = middle }
                }
                return spread[low]
            }
        }
    }
}

/// A small seeded generator, so traces are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The baseline the issue names: a Dictionary behind a Mutex.
final class MutexDictionary: Sendable {
    let storage = Mutex<[String: Data]>([:])
    func get(_ key: String) -> Data? { storage.withLock { $0[key] } }
    func set(_ value: Data, _ key: String) { storage.withLock { $0[key] = value } }
}

/// A real in-process metrics backend (Prometheus' atomic counters), for the variant that counts what an
/// app that bootstrapped metrics pays; the other stores count into swift-metrics' no-op handler.
let prometheus = PrometheusMetricsFactory()

func filledMemoryStore(metrics: CacheMetrics? = nil) -> MemoryStore<Data> {
    let store = MemoryStore<Data>(
        limits: .init(countLimit: keyCount * 2, costLimit: .max), metrics: metrics, cost: { $0.count })
    for key in keys { store.set(value, forKey: key, metadata: farFuture) }
    return store
}

func filledDictionary() -> MutexDictionary {
    let dictionary = MutexDictionary()
    for key in keys { dictionary.set(value, key) }
    return dictionary
}

func filledNSCache() -> NSCache<NSString, NSData> {
    let cache = NSCache<NSString, NSData>()
    for key in nsKeys { cache.setObject(nsValue, forKey: key) }
    return cache
}

func temporaryDirectory(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("CacheKitBench-\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Resident memory in bytes, from /proc/self/statm (the malloc interposer hides glibc's own heap
/// statistics, so growth of the resident set over a million entries is what is measured).
func heapInUse() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * 4_096
}

/// A Dictionary of Ints behind a Mutex, as a class so it can be kept alive while measuring.
final class MutexIntDictionary: Sendable {
    let storage = Mutex<[String: Int]>([:])
}

let benchmarks: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo,
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    // MARK: Memory: get (hit), in three access orders

    let mask = AccessOrder.traceLength - 1
    for order in AccessOrder.allCases {
        let trace = order.trace
        Benchmark("Memory get hit (\(order.rawValue)): MemoryStore", configuration: fast) { benchmark, store in
            for index in benchmark.scaledIterations {
                blackHole(store.get(keys[trace[index & mask]]))
            }
        } setup: { filledMemoryStore() }

        Benchmark("Memory get hit (\(order.rawValue)): MemoryStore, Prometheus metrics", configuration: fast) { benchmark, store in
            for index in benchmark.scaledIterations {
                blackHole(store.get(keys[trace[index & mask]]))
            }
        } setup: { filledMemoryStore(metrics: CacheMetrics(store: "memory", feature: "bench", factory: prometheus)) }

        Benchmark("Memory get hit (\(order.rawValue)): Mutex<Dictionary> (baseline)", configuration: fast) { benchmark, dictionary in
            for index in benchmark.scaledIterations {
                blackHole(dictionary.get(keys[trace[index & mask]]))
            }
        } setup: { filledDictionary() }

        Benchmark("Memory get hit (\(order.rawValue)): NSCache (baseline)", configuration: fast) { benchmark, cache in
            for index in benchmark.scaledIterations {
                blackHole(cache.object(forKey: nsKeys[trace[index & mask]]))
            }
        } setup: { filledNSCache() }
    }

    // MARK: Memory: set (replace)

    Benchmark("Memory set: MemoryStore", configuration: fast) { benchmark, store in
        for index in benchmark.scaledIterations {
            store.set(value, forKey: keys[index % keyCount], metadata: farFuture)
        }
    } setup: { filledMemoryStore() }

    Benchmark("Memory set: Mutex<Dictionary> (baseline)", configuration: fast) { benchmark, dictionary in
        for index in benchmark.scaledIterations {
            dictionary.set(value, keys[index % keyCount])
        }
    } setup: { filledDictionary() }

    Benchmark("Memory set: NSCache (baseline)", configuration: fast) { benchmark, cache in
        for index in benchmark.scaledIterations {
            cache.setObject(nsValue, forKey: nsKeys[index % keyCount])
        }
    } setup: { filledNSCache() }

    // MARK: Disk: get of a 1 KB value

    let disk = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 100_000)
    let diskKeys = Array(keys.prefix(1_000))

    Benchmark("Disk get 1 KB: DiskStore", configuration: disk) { (benchmark: Benchmark, store: DiskStore) in
        for index in benchmark.scaledIterations {
            blackHole(store.get(diskKeys[index % diskKeys.count]))
        }
    } setup: {
        let store = DiskStore(configuration: .init(directory: temporaryDirectory("get")))
        for key in diskKeys { try store.set(Data(repeating: 1, count: 1_024), forKey: key, metadata: farFuture) }
        return store
    }

    Benchmark("Disk get 1 KB: raw GRDB point read (baseline)", configuration: disk) { (benchmark: Benchmark, pool: DatabasePool) in
        for index in benchmark.scaledIterations {
            let key = diskKeys[index % diskKeys.count]
            blackHole(try pool.read { db in
                try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM entry WHERE key = ?"), arguments: [key])
            })
        }
    } setup: {
        let store = DiskStore(configuration: .init(directory: temporaryDirectory("raw")))
        for key in diskKeys { try store.set(Data(repeating: 1, count: 1_024), forKey: key, metadata: farFuture) }
        return try DatabasePool(path: store.configuration.databaseURL.path)
    }

    // MARK: Storage choice: one file per entry, the alternative to SQLite

    func fileURL(_ directory: URL, _ key: String) -> URL {
        directory.appendingPathComponent(Data(key.utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_"))
    }

    Benchmark("Disk get 1 KB: file per entry (alternative)", configuration: disk) { (benchmark: Benchmark, directory: URL) in
        for index in benchmark.scaledIterations {
            blackHole(try Data(contentsOf: fileURL(directory, diskKeys[index % diskKeys.count])))
        }
    } setup: {
        let directory = temporaryDirectory("files")
        for key in diskKeys { try Data(repeating: 1, count: 1_024).write(to: fileURL(directory, key), options: .atomic) }
        return directory
    }

    Benchmark("Disk set 1 KB: DiskStore", configuration: disk) { (benchmark: Benchmark, store: DiskStore) in
        for index in benchmark.scaledIterations {
            try store.set(Data(repeating: 2, count: 1_024), forKey: diskKeys[index % diskKeys.count], metadata: farFuture)
        }
    } setup: {
        DiskStore(configuration: .init(directory: temporaryDirectory("set")))
    }

    Benchmark("Disk set 1 KB: file per entry, atomic (alternative)", configuration: disk) { (benchmark: Benchmark, directory: URL) in
        for index in benchmark.scaledIterations {
            try Data(repeating: 2, count: 1_024).write(to: fileURL(directory, diskKeys[index % diskKeys.count]), options: .atomic)
        }
    } setup: {
        temporaryDirectory("fileset")
    }

    Benchmark("Disk remove all, 10k entries of 5 KB: delete files (alternative)",
              configuration: .init(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 5)) { benchmark in
        let directory = temporaryDirectory("fileclear")
        let blob = Data(repeating: 9, count: 5_000)
        for key in keys { try blob.write(to: fileURL(directory, key)) }
        benchmark.startMeasurement()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try FileManager.default.removeItem(atPath: directory.appendingPathComponent(file).path)
        }
        benchmark.stopMeasurement()
        try FileManager.default.removeItem(at: directory)
    }

    // MARK: clearAllCaches: 10,000 entries in memory and 50 MB on disk

    Benchmark("clearAllCaches: 10k entries, memory + 50 MB disk",
              configuration: .init(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 5)) { benchmark in
        let environment = CacheEnvironment(cachesDirectory: temporaryDirectory("clear"))
        let unified = UnifiedCacheManager(timeouts: environment.timeouts)
        let onDisk = try CacheManager<Data>(feature: "disk", environment: environment,
                                            memoryLimits: .init(countLimit: 20_000, costLimit: .max),
                                            persistence: .disk(byteLimit: 60 * 1024 * 1024))
        let inMemory = try CacheManager<Data>(feature: "memory", environment: environment,
                                              memoryLimits: .init(countLimit: 20_000, costLimit: .max))
        unified.register(onDisk)
        unified.register(inMemory)
        let blob = Data(repeating: 9, count: 5_000)  // 10,000 x ~5 KB = ~50 MB on disk
        for key in keys {
            try await onDisk.set(blob, forKey: key)
            try await inMemory.set(value, forKey: key)
        }
        benchmark.startMeasurement()
        let report = await unified.clearAllCaches()
        benchmark.stopMeasurement()
        precondition(report.isComplete)
        try? FileManager.default.removeItem(at: environment.cachesDirectory)
    }

    // MARK: Memory overhead per entry

    let overheadMetric = BenchmarkMetric.custom("resident bytes per entry", polarity: .prefersSmaller, useScalingFactor: false)
    let entries = 1_000_000
    let smallKeys = (0..<entries).map { String(format: "k%08d", $0) }  // 9 bytes: stored inline, no heap

    Benchmark("Overhead per entry: MemoryStore<Int>",
              configuration: .init(metrics: [overheadMetric], maxIterations: 3)) { benchmark in
        let before = heapInUse()
        let store = MemoryStore<Int>(limits: .init(countLimit: entries, costLimit: .max))
        let metadata = CacheEntryMetadata(storedAt: Date(), expiresAt: nil)
        for (index, key) in smallKeys.enumerated() { store.set(index, forKey: key, metadata: metadata) }
        benchmark.measurement(overheadMetric, (heapInUse() - before) / entries)
        blackHole(store)
    }

    Benchmark("Overhead per entry: Mutex<[String: Int]> (baseline)",
              configuration: .init(metrics: [overheadMetric], maxIterations: 3)) { benchmark in
        let before = heapInUse()
        let dictionary = MutexIntDictionary()
        for (index, key) in smallKeys.enumerated() { dictionary.storage.withLock { $0[key] = index } }
        benchmark.measurement(overheadMetric, (heapInUse() - before) / entries)
        blackHole(dictionary)
    }

    offlineDataBenchmarks()
    observationBenchmarks()
}
