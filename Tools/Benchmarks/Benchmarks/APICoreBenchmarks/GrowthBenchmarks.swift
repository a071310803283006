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

// MARK: The subjects

struct MemoryStoreSubject: GrowthSubject {
    let store: MemoryStore<Data>
    let keys: [String]
    static func make(count: Int, full: Bool) async throws -> Self {
        let store = MemoryStore<Data>(
            limits: .init(countLimit: full ? count : 4 * count, costLimit: .max), cost: { $0.count })
        let keys = growthKeys(count)
        for key in keys.prefix(count) { store.set(growthValue, forKey: key, metadata: growthForever) }
        return Self(store: store, keys: keys)
    }
    func hit(_ index: Int) { blackHole(store.get(keys[index], requester: "growth-user")) }
    func write(_ index: Int) { store.set(growthValue, forKey: keys[index], metadata: growthForever) }
    func clear() { store.removeAll() }
}

struct DiskStoreSubject: GrowthSubject {
    let store: DiskStore
    let keys: [String]
    static func make(count: Int, full: Bool) async throws -> Self {
        let keys = growthKeys(count)
        let entryBytes = growthValue.count + growthKey(count).utf8.count
        let store = DiskStore(configuration: .init(
            directory: growthDirectory("disk"), byteLimit: full ? count * entryBytes : Int.max / 2))
        for key in keys.prefix(count) { try store.set(growthValue, forKey: key, metadata: growthForever) }
        return Self(store: store, keys: keys)
    }
    func hit(_ index: Int) { blackHole(store.get(keys[index], requester: "growth-user")) }
    func write(_ index: Int) throws { try store.set(growthValue, forKey: keys[index], metadata: growthForever) }
    func clear() throws { try store.removeAll() }
}

/// The REST client's HTTP cache: responses that declare themselves uplifted, so in memory and on disk.
struct HTTPCacheSubject: GrowthSubject {
    /// Answers every GET with a cacheable 256-byte body.
    final class Origin: HTTPTransport {
        func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
            TransportResponse(status: 200, headerFields: [.cacheControl: "max-age=86400", .contentType: "application/json"],
                              body: growthValue)
        }
    }

    let client: RESTClient
    let requests: [APIRequest<Data>]
    static func make(count: Int, full: Bool) async throws -> Self {
        let requests = (0..<2 * count).map {
            APIRequest<Data>(path: "/items/\($0)", cacheable: Cacheable(key: "item", isUplifted: true), feature: "growth")
        }
        // A full cache's disk holds `count` stored responses: the size of one, measured, times `count`.
        let probe = client(memory: (1, .max), disk: .max)
        _ = try await probe.send(requests[count])
        let entryBytes = try await probe.cacheParticipant.exportEntries().first { $0.store == "disk" }?.bytes ?? 1_024
        let client = client(memory: (full ? count : 4 * count, .max), disk: full ? count * entryBytes : .max / 2)
        for request in requests.prefix(count) { _ = try await client.send(request) }
        return Self(client: client, requests: requests)
    }
    static func client(memory: (Int, Int), disk: Int) -> RESTClient {
        RESTClient(configuration: .init(
            baseURL: growthOrigin, transport: Origin(), environment: quietEnvironment(),
            tokenProvider: StaticTokenProvider(Credentials(accessToken: "token", userId: "growth-user")), retry: .none,
            memoryLimits: memory, diskByteLimit: disk))
    }
    func hit(_ index: Int) async throws { blackHole(try await client.send(requests[index]).value) }
    /// A replacement is a reload that ignores the stored response (a new 200 stored over it); a new entry is a miss.
    func write(_ index: Int) async throws {
        blackHole(try await client.send(requests[index], policy: .fetchIgnoringCacheData).value)
    }
    func clear() async throws { try await client.cacheParticipant.clearAll() }
}

/// A normalized record: a transaction's typename and three scalar fields.
func growthRecord(_ index: Int) -> NormalizedRecord {
    NormalizedRecord(fields: [
        "__typename": .value(.string("Transaction")), "id": .value(.string("t\(index)")),
        "amount": .value(.string("12.50")), "memo": .value(.string("Groceries at the corner shop")),
    ])
}

/// Records `0..<2 * count`, keyed as the client keys them and made once; the first `count` fill a store.
struct GrowthRecords: Sendable {
    let keys: [String]
    let records: [NormalizedRecord]

    init(count: Int) {
        keys = (0..<2 * count).map { "Transaction:t\($0)" }
        records = (0..<2 * count).map(growthRecord)
    }

    /// Merges the first `count`, a thousand at a time, as responses arrive.
    func fill(_ count: Int, into merge: ([String: NormalizedRecord]) throws -> Void) rethrows {
        for start in stride(from: 0, to: count, by: 1_000) {
            try merge(Dictionary(uniqueKeysWithValues: (start..<min(count, start + 1_000)).map { (keys[$0], records[$0]) }))
        }
    }

    /// Record `index` alone, as one write merges it.
    func one(_ index: Int) -> [String: NormalizedRecord] { [keys[index]: records[index]] }
}

struct InMemoryRecordStoreSubject: GrowthSubject {
    let store: InMemoryRecordStore
    let data: GrowthRecords
    static func make(count: Int, full: Bool) async throws -> Self {
        let data = GrowthRecords(count: count)
        let store = InMemoryRecordStore(limits: .init(byteLimit: .max, recordLimit: full ? count : 4 * count))
        data.fill(count) { _ = store.merge($0) }
        return Self(store: store, data: data)
    }
    func hit(_ index: Int) { blackHole(store.record(forKey: data.keys[index])) }
    func write(_ index: Int) { blackHole(store.merge(data.one(index))) }
    func clear() { store.removeAll() }
}

struct SQLiteRecordStoreSubject: GrowthSubject {
    let store: SQLiteRecordStore
    let data: GrowthRecords
    static func make(count: Int, full: Bool) async throws -> Self {
        let data = GrowthRecords(count: count)
        let url = growthDirectory("records").appendingPathComponent("records.sqlite")
        // A full store's byte limit is what `count` records take, read from the store after the fill.
        var store = try SQLiteRecordStore(url: url, byteLimit: .max / 2)
        try data.fill(count) { _ = try store.merge($0) }
        if full {
            let bytes = try store.usage().bytes
            store = try SQLiteRecordStore(url: url, byteLimit: bytes)
        }
        return Self(store: store, data: data)
    }
    func hit(_ index: Int) throws { blackHole(try store.record(forKey: data.keys[index])) }
    func write(_ index: Int) throws { blackHole(try store.merge(data.one(index))) }
    func clear() throws { try store.removeAll() }
}

/// The mutation queue holds what it is given: it has no eviction. A hit reads the head of the queue.
struct MutationQueueSubject: GrowthSubject {
    let queue: MutationQueue
    static func make(count: Int, full: Bool) async throws -> Self {
        let (queue, _) = benchQueue(directory: queueDirectory())
        for _ in 0..<count { try await queue.enqueue(favoriteRequest, name: "AddFavorite") }
        return Self(queue: queue)
    }
    func hit(_ index: Int) async { blackHole(await queue.pending().first) }
    func write(_ index: Int) async throws { blackHole(try await queue.enqueue(favoriteRequest, name: "AddFavorite")) }
    func clear() async { await queue.erase(userId: queueCredentials.userId) }
}

/// The image cache with 1 KB thumbnails (a PNG signature and padding).
struct ImageCacheSubject: GrowthSubject {
    static let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 1_016)
    let cache: ImageCache
    let keys: [String]
    static func make(count: Int, full: Bool) async throws -> Self {
        let keys = (0..<2 * count).map { "https://images.example.com/contacts/\($0).png" }
        let entryBytes = image.count + "growth-user\u{1F}".utf8.count + keys[count].utf8.count
        let cache = ImageCache(configuration: .init(directory: growthDirectory("images"), byteLimit: full ? count * entryBytes : .max / 2))
        for key in keys.prefix(count) { _ = try await cache.image(forKey: key, user: "growth-user") { image } }
        return Self(cache: cache, keys: keys)
    }
    func hit(_ index: Int) { blackHole(cache.image(forKey: keys[index], user: "growth-user")) }
    /// A replacement clears the one image and loads it again, as a changed avatar does; a new one is a load.
    func write(_ index: Int) async throws {
        try cache.clear(forKey: keys[index])
        blackHole(try await cache.image(forKey: keys[index], user: "growth-user") { Self.image })
    }
    func clear() throws { try cache.clearAll() }
}

/// The contacts search index: a hit is a search for one contact's surname, a write an upsert of one
/// contact. It has no eviction: it indexes what the store holds.
struct SearchIndexSubject: GrowthSubject {
    static let givenNames = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken"]
    let index: SearchIndex
    let documents: [SearchDocument]
    let queries: [String]
    static func document(_ index: Int) -> SearchDocument {
        let name = "\(givenNames[index % givenNames.count]) Surname\(index)"
        return SearchDocument(id: "c\(index)", sortKey: name.lowercased(), fields: [
            .name(name), .text(["Company \(index % 97)"]), .phones(["+1 555 \(1_000_000 + index)"]),
        ])
    }
    static func make(count: Int, full: Bool) async throws -> Self {
        let index = SearchIndex(name: "contacts")
        let documents = (0..<2 * count).map(document)
        index.rebuild(Array(documents.prefix(count)))
        return Self(index: index, documents: documents, queries: (0..<count).map { "surname\($0)" })
    }
    func hit(_ index: Int) { blackHole(self.index.search(queries[index], limit: 20)) }
    func write(_ index: Int) { self.index.upsert([documents[index]]) }
    func clear() { index.clearAll() }
}

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
            Benchmark("Growth \(name) eviction step, \(size) entries", configuration: perOperation) { (benchmark: Benchmark, store: Subject) in
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
    growthBenchmarks(MemoryStoreSubject.self, "MemoryStore")
    growthBenchmarks(DiskStoreSubject.self, "DiskStore")
    growthBenchmarks(HTTPCacheSubject.self, "HTTP cache")
    growthBenchmarks(InMemoryRecordStoreSubject.self, "normalized cache, in memory")
    growthBenchmarks(SQLiteRecordStoreSubject.self, "normalized cache, SQLite")
    growthBenchmarks(MutationQueueSubject.self, "mutation queue", evicts: false)
    growthBenchmarks(ImageCacheSubject.self, "image cache")
    growthBenchmarks(SearchIndexSubject.self, "search index", evicts: false)
}
