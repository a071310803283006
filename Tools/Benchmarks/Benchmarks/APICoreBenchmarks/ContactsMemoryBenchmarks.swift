import APICore
import APICoreGraphQL
import Benchmark
import CacheKit
import Foundation

// The cache's memory for a contacts-sized workload: 10,000 contact-like objects of about 500 bytes of
// JSON each (5 MB), held twice as an app would hold them: normalized (a GraphQL query's response in the
// in-memory record store), and as values in a CacheManager (one entry per contact, memory only), each with its default limits. Measured:
// the allocator bytes still held once the parsed response is gone (glibc's `mallinfo2`), for each and in all.

struct Contact: Codable, Sendable {
    struct Address: Codable, Sendable { var street: String; var city: String; var postcode: String; var country: String }
    var __typename = "Contact"
    var id: String
    var name: String
    var email: String
    var phone: String
    var company: String
    var title: String
    var address: Address
    var notes: String
}

struct ContactsQuery: GraphQLQuery {
    static let document = """
        query Contacts { contacts { id name email phone company title address { street city postcode country } notes } }
        """
}

struct ContactKeys: CacheKeyProvider {
    let typenames: Set<String> = ["Contact"]
    func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
        object["id"]?.stringValue.map { NormalizedCacheKey("Contact:\($0)") }
    }
}

func contacts(_ count: Int) -> [Contact] {
    (0..<count).map { index in
        Contact(
            id: "contact-\(index)", name: "Person Number \(index) Surname", email: "person.\(index)@example-company.com",
            phone: "+44 20 7946 \(String(format: "%04d", index % 10_000))", company: "Company \(index % 500) Limited",
            title: "Senior Account Manager, Region \(index % 12)",
            address: .init(street: "\(index % 300) High Street, Flat \(index % 40)", city: "City \(index % 80)",
                           postcode: "AB\(index % 99) \(index % 9)CD", country: "United Kingdom"),
            notes: "Met at the conference in \(2_000 + index % 26); prefers e-mail; follow up about the renewal of contract \(index)."
                + " Interested in the premium plan.")
    }
}

func contactsMemoryBenchmarks() {
    let normalizedMB = BenchmarkMetric.custom("normalized store, KB held", polarity: .prefersSmaller, useScalingFactor: false)
    let managerMB = BenchmarkMetric.custom("CacheManager, KB held", polarity: .prefersSmaller, useScalingFactor: false)
    let totalMB = BenchmarkMetric.custom("both, KB held", polarity: .prefersSmaller, useScalingFactor: false)
    let jsonKB = BenchmarkMetric.custom("JSON, KB", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Contacts 10k (~500 B each): cache memory, normalized store + CacheManager",
        configuration: .init(metrics: [normalizedMB, managerMB, totalMB, jsonKB], maxIterations: 3)
    ) { benchmark in
        let people = contacts(10_000)
        let body = try JSONEncoder().encode(["data": ["contacts": people]])
        let operation = try GraphQLOperation(ContactsQuery.document)
        let environment = quietEnvironment()
        let start = allocatedBytes()
        let store = InMemoryRecordStore()
        try NormalizedCache(store: store) { _ in ContactKeys() }.write(try parsedData(body), for: operation, variables: [:])
        let afterNormalized = allocatedBytes()
        let manager = try CacheManager<Contact>(feature: "contacts", environment: environment)
        for contact in people { try await manager.set(contact, forKey: "contact:\(contact.id)") }
        let afterManager = allocatedBytes()
        benchmark.measurement(normalizedMB, (afterNormalized - start) / 1_024)
        benchmark.measurement(managerMB, (afterManager - afterNormalized) / 1_024)
        benchmark.measurement(totalMB, (afterManager - start) / 1_024)
        benchmark.measurement(jsonKB, body.count / 1_024)
        blackHole(store)
        blackHole(manager)
    }
}
