import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import ContactsKit
import Foundation
import HTTPTypes
import HeapUsage
import Logging
import ReferenceBackend

// ContactsKit against the reference backend's 10,000 contacts, side by side in one run: a full sync
// (requests, time, the memory the kit holds afterwards, the file on disk) against fetching and decoding
// the same pages with no store (the baseline); an incremental sync of 10 changed contacts; and a search
// over the cached 10,000 (per query).

/// A backend with its 10,000 contacts seeded, and a signed-in user.
struct ContactsBench: Sendable {
    let backend: ReferenceBackend
    let credentials: Credentials
    let directory: URL

    static func start(contacts: Int = 10_000) async throws -> ContactsBench {
        var logger = Logger(label: "bench-contacts")
        logger.logLevel = .critical
        let directory = scratchDirectory("ContactsBench")
        let backend = try await startBackend(
            .init(databaseURL: directory.appendingPathComponent("backend.sqlite"), passwordWork: .light, contactCount: contacts, logger: logger))
        let login = try await URLSessionTransport().send(
            TransportRequest(
                method: .post, url: backend.baseURL.appendingPathComponent("auth/login"), headerFields: [.contentType: "application/json"],
                body: Data(#"{"email":"alice@example.com","password":"Password1"}"#.utf8)))
        let body = try JSONValue.parse(login.body)["data"]
        guard let token = body?["token"]?.stringValue, let user = body?["user"]?["id"]?.stringValue else { throw BenchmarkSetupError.noToken }
        let bench = ContactsBench(backend: backend, credentials: Credentials(accessToken: token, userId: user), directory: directory)
        _ = try await bench.rest(CountingRequests()).send(APIRequest<Data>(path: "/contacts?limit=1"), policy: .fetchIgnoringCacheCompletely)
        return bench
    }

    /// A client over `caches` (a fresh folder unless given: the same folder is the same device opened again).
    func rest(_ counter: CountingRequests, caches: URL? = nil) -> RESTClient {
        var logger = Logger(label: "bench-contacts")
        logger.logLevel = .critical
        let environment = CacheEnvironment(
            logger: logger, cachesDirectory: caches ?? directory.appendingPathComponent("caches-\(UUID().uuidString)"))
        counter.base = URLSessionTransport()
        return RESTClient(
            configuration: .init(
                baseURL: backend.baseURL, transport: counter, environment: environment, tokenProvider: StaticTokenProvider(credentials),
                retry: .none))
    }

    /// A fresh device: the kit over its own caches folder.
    func client(_ counter: CountingRequests, caches: URL? = nil) -> ContactsClient {
        let rest = rest(counter, caches: caches)
        let environment = rest.configuration.environment
        let queue = MutationQueue(
            configuration: .init(
                directory: environment.cachesDirectory.appendingPathComponent("mutations"), tokenProvider: StaticTokenProvider(credentials),
                rest: rest))
        return ContactsClient(rest: rest, queue: queue, environment: environment, images: ImageCache(environment: environment))
    }
}

/// Counts the requests that reach the network.
final class CountingRequests: HTTPTransport, @unchecked Sendable {
    var base: any HTTPTransport = URLSessionTransport()
    /// Added before each request is sent (a slow network's latency).
    var latency: Duration = .zero
    private let counter = Locked(0)
    var count: Int { counter.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        counter.withLock { $0 += 1 }
        if latency > .zero {
            do { try await Task.sleep(for: latency) } catch { throw .cancelled }
        }
        return try await base.send(request)
    }
}

let requestsMetric = BenchmarkMetric.custom("requests", polarity: .prefersSmaller, useScalingFactor: false)
let heldMetric = BenchmarkMetric.custom("heap held after (KB)", polarity: .prefersSmaller, useScalingFactor: false)
let diskMetric = BenchmarkMetric.custom("file on disk (KB)", polarity: .prefersSmaller, useScalingFactor: false)

/// One full sync of a fresh device: its time, the heap it holds afterwards, its file on disk and its requests.
func measureFullSync(_ benchmark: Benchmark, _ bench: ContactsBench, expecting count: Int) async throws {
    let counter = CountingRequests()
    let before = heap_bytes_in_use()
    let client = bench.client(counter)
    benchmark.startMeasurement()
    let report = await client.syncNow()
    benchmark.stopMeasurement()
    precondition(report.isComplete && report.counts["contacts"] == count, "\(report)")
    benchmark.measurement(heldMetric, (Int(heap_bytes_in_use()) - Int(before)) / 1_024)
    let file = client.store.fileURL(for: bench.credentials.userId)
    let bytes = ["", "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: file.path + $0)[.size] as? Int }.reduce(0, +)
    benchmark.measurement(diskMetric, bytes / 1_024)
    benchmark.measurement(requestsMetric, counter.count)
    blackHole(client)
    try await client.store.clearAll()
}

/// A device synced in full against its own backend.
struct SyncedDevice: Sendable {
    let bench: ContactsBench
    let client: ContactsClient
    let counter: CountingRequests

    static func make(contacts: Int) async throws -> SyncedDevice {
        let bench = try await ContactsBench.start(contacts: contacts)
        let counter = CountingRequests()
        let client = bench.client(counter)
        _ = await client.syncNow()
        return SyncedDevice(bench: bench, client: client, counter: counter)
    }
}

/// Ten contacts renamed on the server (every `stride`-th), then one incremental sync measured.
func measureIncrementalSync(_ benchmark: Benchmark, _ device: SyncedDevice, changingEvery stride: Int) async throws {
    let admin = device.bench.rest(CountingRequests())
    for index in 0..<10 {
        let body = Data(#"{"displayName":"Changed \#(UUID().uuidString.prefix(8))"}"#.utf8)
        _ = try await admin.send(
            APIRequest<Data>(method: .patch, path: "/contacts/c\(index * stride)", headerFields: [.contentType: "application/json"], body: body),
            policy: .fetchIgnoringCacheCompletely)
    }
    let before = device.counter.count
    benchmark.startMeasurement()
    let report = await device.client.syncNow()
    benchmark.stopMeasurement()
    precondition(report.mode == .incremental && report.counts["contacts"] == 10, "\(report)")
    benchmark.measurement(requestsMetric, device.counter.count - before)
}

func contactsSyncBenchmarks() {
    let requests = requestsMetric
    let held = heldMetric
    let sync = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, requests, held, diskMetric], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 5)

    Benchmark("Contacts full sync, 10,000 from the local backend: ContactsKit", configuration: sync) {
        (benchmark: Benchmark, bench: ContactsBench) in
        try await measureFullSync(benchmark, bench, expecting: 10_000)
    } setup: {
        try await ContactsBench.start()
    }

    Benchmark("Contacts full sync, 10,000 from the local backend: fetch and decode only (baseline)", configuration: sync) {
        (benchmark: Benchmark, bench: ContactsBench) in
        let counter = CountingRequests()
        let rest = bench.rest(counter)
        benchmark.startMeasurement()
        let total = try await fetchAndDecodeAll(rest)
        benchmark.stopMeasurement()
        precondition(total == 10_000)
        benchmark.measurement(requests, counter.count)
    } setup: {
        try await ContactsBench.start()
    }

    Benchmark("Contacts incremental sync, 10 changed of 10,000: ContactsKit", configuration: sync) {
        (benchmark: Benchmark, device: SyncedDevice) in
        try await measureIncrementalSync(benchmark, device, changingEvery: 997)
    } setup: {
        try await SyncedDevice.make(contacts: 10_000)
    }

    let queries = ["a", "zo", "mar", "zoe", "müller", "ana g", "lucia perez", "example", "(212) 4", "4567", "xyz", "emma smith"]
    Benchmark(
        "Contacts search over the cached 10,000, one query: ContactsKit",
        configuration: .init(metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 20_000)
    ) { (benchmark: Benchmark, client: ContactsClient) in
        for iteration in benchmark.scaledIterations {
            blackHole(try await client.search(queries[iteration % queries.count]))
        }
    } setup: {
        let bench = try await ContactsBench.start()
        let client = bench.client(CountingRequests())
        _ = await client.syncNow()
        return client
    }

    // The memory five screens' observations add to 10,000 synced contacts (a list of 50, a contact, the
    // circles, a search and the score), against the same client with none (the baseline).
    let observed = BenchmarkMetric.custom("heap held by the observations (KB)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Contacts 10,000 synced, five observers: memory",
        configuration: .init(metrics: [observed, held], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 5)
    ) { (benchmark: Benchmark, bench: ContactsBench) in
        let client = bench.client(CountingRequests())
        let beforeSync = heap_bytes_in_use()
        _ = await client.syncNow()
        let before = heap_bytes_in_use()
        var list = try await client.observeContacts(limit: 50).makeAsyncIterator()
        var contact = try await client.observeContact(id: "c1").makeAsyncIterator()
        var circles = try await client.observeCircles().makeAsyncIterator()
        var search = try await client.observeSearch("mar").makeAsyncIterator()
        var score = try await client.observeScore().makeAsyncIterator()
        let first = try await list.next()
        precondition(first?.value.total == 10_000)
        _ = try await contact.next()
        _ = try await circles.next()
        _ = try await search.next()
        _ = try await score.next()
        benchmark.measurement(observed, (Int(heap_bytes_in_use()) - Int(before)) / 1_024)
        benchmark.measurement(held, (Int(heap_bytes_in_use()) - Int(beforeSync)) / 1_024)
        blackHole((list, contact, circles, search, score))
        try await client.store.clearAll()
    } setup: {
        try await ContactsBench.start()
    }
}
