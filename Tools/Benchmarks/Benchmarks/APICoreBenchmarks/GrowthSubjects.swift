import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import Foundation
import HTTPTypes

// The stores and caches `GrowthBenchmarks.swift` measures, each behind `GrowthSubject`.

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

/// The baseline for the stores in memory: a locked dictionary of the same keys and values, which grows as
/// the processor's caches do and nothing else. A store in memory whose hit grows as this does adds no work.
struct DictionarySubject: GrowthSubject {
    let entries: Locked<[String: Data]>
    let keys: [String]
    static func make(count: Int, full: Bool) async throws -> Self {
        let keys = growthKeys(count)
        return Self(entries: Locked(Dictionary(uniqueKeysWithValues: keys.prefix(count).map { ($0, growthValue) })), keys: keys)
    }
    func hit(_ index: Int) { blackHole(entries.withLock { $0[keys[index]] }) }
    func write(_ index: Int) { entries.withLock { $0[keys[index]] = growthValue } }
    func clear() { entries.withLock { $0.removeAll() } }
}

struct DiskStoreSubject: GrowthSubject {
    let store: DiskStore
    let keys: [String]
    static func make(count: Int, full: Bool) async throws -> Self {
        let keys = growthKeys(count)
        let entryBytes = growthValue.count + growthKey(count).utf8.count
        let store = DiskStore(
            configuration: .init(
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
            TransportResponse(
                status: 200, headerFields: [.cacheControl: "max-age=86400", .contentType: "application/json"],
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
        RESTClient(
            configuration: .init(
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

/// The image cache with 1 KB thumbnails (whole PNG frames: the signature, an `IHDR` chunk's head, padding,
/// `IEND`; the cache refuses a frame cut short).
struct ImageCacheSubject: GrowthSubject {
    static let image =
        Data(ImageFormat.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8)) + Data(repeating: 1, count: 1_024 - 28)
        + Data(ImageFormat.pngEnd)
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
        return SearchDocument(
            id: "c\(index)", sortKey: name.lowercased(),
            fields: [
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
    /// The change applied before the write is counted done (the index applies it on a thread of its own).
    func write(_ index: Int) {
        self.index.upsert([documents[index]])
        self.index.applyCommittedChanges()
    }
    func clear() { index.clearAll() }
}
