import APICore
import APICoreREST
import Benchmark
import CacheKit
import ContactsKit
import Foundation
import HTTPTypes

// ContactsKit at ten times the specification's size (100,000 contacts from the local backend), beside the same
// fetch-and-decode baseline: the full sync (time, memory held, file on disk), an incremental sync of 10, a
// search, and the list's first screen from a cold open; and a background sync on a slow network (200 ms a
// request) within its 30 s budget.

let scaledCount = 100_000

func contactsScaleBenchmarks() {
    let requests = requestsMetric
    let large = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, requests, heldMetric, diskMetric], scalingFactor: .one, maxDuration: .seconds(120),
        maxIterations: 3)

    Benchmark("Contacts 100,000 full sync: ContactsKit", configuration: large) { (benchmark: Benchmark, bench: ContactsBench) in
        try await measureFullSync(benchmark, bench, expecting: scaledCount)
    } setup: {
        try await ContactsBench.start(contacts: scaledCount)
    }

    Benchmark("Contacts 100,000 full sync: fetch and decode only (baseline)", configuration: large) { (benchmark: Benchmark, bench: ContactsBench) in
        let counter = CountingRequests()
        let rest = bench.rest(counter)
        benchmark.startMeasurement()
        let total = try await fetchAndDecodeAll(rest)
        benchmark.stopMeasurement()
        precondition(total == scaledCount)
        benchmark.measurement(requests, counter.count)
    } setup: {
        try await ContactsBench.start(contacts: scaledCount)
    }

    Benchmark("Contacts 100,000 incremental sync, 10 changed: ContactsKit", configuration: large) {
        (benchmark: Benchmark, device: SyncedDevice) in
        try await measureIncrementalSync(benchmark, device, changingEvery: 9_973)
    } setup: {
        try await SyncedDevice.make(contacts: scaledCount)
    }

    let queries = ["a", "zo", "mar", "zoe", "müller", "ana g", "lucia perez", "example", "(212) 4", "4567", "xyz", "emma smith"]
    Benchmark(
        "Contacts 100,000 search, one query: ContactsKit",
        configuration: .init(metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 5_000)
    ) { (benchmark: Benchmark, client: ContactsClient) in
        for iteration in benchmark.scaledIterations {
            blackHole(try await client.search(queries[iteration % queries.count]))
        }
    } setup: {
        let bench = try await ContactsBench.start(contacts: scaledCount)
        let client = bench.client(CountingRequests())
        _ = await client.syncNow()
        _ = try await client.search("warm")
        return client
    }

    // The device opened again: a new client over the synced folder reads the list's first 50.
    Benchmark(
        "Contacts 100,000 first screen of the list from a cold open: ContactsKit",
        configuration: .init(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 50)
    ) { (benchmark: Benchmark, state: (ContactsBench, URL)) in
        let (bench, caches) = state
        benchmark.startMeasurement()
        let client = bench.client(CountingRequests(), caches: caches)
        let page = try await client.contacts(limit: 50).value
        benchmark.stopMeasurement()
        precondition(page.total == scaledCount && page.contacts.count == 50)
        blackHole(client)
    } setup: {
        let bench = try await ContactsBench.start(contacts: scaledCount)
        let caches = bench.directory.appendingPathComponent("device")
        _ = await bench.client(CountingRequests(), caches: caches).syncNow()
        return (bench, caches)
    }

    // A background sync of 100,000 over a network adding 200 ms to each request, within the 30 s budget.
    let brought = BenchmarkMetric.custom("contacts brought in", polarity: .prefersLarger, useScalingFactor: false)
    let rate = BenchmarkMetric.custom("contacts per second", polarity: .prefersLarger, useScalingFactor: false)
    Benchmark(
        "Contacts background sync, 200 ms a request, 30 s budget: ContactsKit",
        configuration: .init(metrics: [.wallClock, brought, rate, requests], scalingFactor: .one, maxDuration: .seconds(120), maxIterations: 2)
    ) { (benchmark: Benchmark, bench: ContactsBench) in
        let counter = CountingRequests()
        let client = bench.client(counter)
        counter.latency = .milliseconds(200)
        let started = ContinuousClock.now
        benchmark.startMeasurement()
        let report = await BackgroundSync(runners: [client.sync]).run(budget: 30)
        benchmark.stopMeasurement()
        let elapsed = started.duration(to: .now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let contacts = report.syncs.first?.counts["contacts"] ?? 0
        benchmark.measurement(brought, contacts)
        benchmark.measurement(rate, Int(Double(contacts) / max(seconds, 0.001)))
        benchmark.measurement(requests, counter.count)
        try await client.store.clearAll()
    } setup: {
        try await ContactsBench.start(contacts: scaledCount)
    }
}

/// Pages through `/contacts` 500 at a time and decodes each page's four fields, storing nothing (the baseline).
func fetchAndDecodeAll(_ rest: RESTClient) async throws -> Int {
    struct Page: Decodable {
        struct Item: Decodable {
            var id: String
            var displayName: String
            var phones: [String]
            var emails: [String]
        }
        var data: [Item]
    }
    var after: String?
    var total = 0
    repeat {
        var query = [URLQueryItem(name: "limit", value: "500")]
        if let after { query.append(URLQueryItem(name: "after", value: after)) }
        let response = try await rest.send(
            APIRequest<Page>(path: "/contacts", query: query, decode: { data throws(APIError) in
                do { return try JSONDecoder().decode(Page.self, from: data) } catch { throw .decoding(path: "", reason: "\(error)") }
            }), policy: .fetchIgnoringCacheCompletely)
        total += response.value.data.count
        after = response.headerFields[HTTPField.Name("X-Next-Cursor") ?? .contentType]
    } while after != nil
    return total
}
