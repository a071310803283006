import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// `registry.setDefaultTimeout(_:forFeature:)` is one mechanism for the three caches: a
/// `CacheManager` without a default of its own, a REST request declaring `Cacheable` without a
/// timeout, and a GraphQL query all keep the feature's data for the kit's default.
@Suite(.timeLimit(.minutes(10))) struct KitDefaultTimeoutTests {
    struct NotesKit: FeatureKit {
        let name = "notes"
        func register(in registry: KitRegistry) throws(ContainerError) {
            registry.setDefaultTimeout(.seconds(10), forFeature: "notes")
            registry.setDefaultTimeout(.seconds(10), forFeature: "accounts")
        }
    }

    @Test func aCacheManagerWithoutADefaultOfItsOwnUsesTheKitsDefault() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let environment = CacheEnvironment(clock: clock, cachesDirectory: directory.url)
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts))
        try container.install([NotesKit()])
        let notes = try CacheManager<String>(feature: "notes", environment: environment)
        try await notes.set("a note", forKey: "n1")
        clock.advance(by: 9)
        #expect(await notes.value(forKey: "n1", requester: nil) == "a note")
        clock.advance(by: 2)
        #expect(await notes.value(forKey: "n1", requester: nil) == nil, "11 s later: past the kit's 10 s")
    }

    @Test func aRESTRequestDeclaringCacheableWithoutATimeoutUsesTheKitsDefault() async throws {
        let transport = RecordingTransport()
        transport.stub(.get, "/notes", status: 200, headerFields: [.cacheControl: "max-age=3600"], body: Data(#"{"id":1,"name":"n"}"#.utf8))
        let fixture = try ClientFixture(baseURL: try #require(URL(string: "https://notes.test")), transport: transport)
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: fixture.environment.timeouts))
        try container.install([NotesKit()])
        let request = APIRequest<Item>(path: "/notes", cacheable: Cacheable(key: "notes"), feature: "notes")
        _ = try await fixture.client.send(request)
        fixture.clock.advance(by: 9)
        #expect(try await fixture.client.send(request).source == .cache)
        fixture.clock.advance(by: 2)
        #expect(try await fixture.client.send(request).source == .network, "the kit's 10 s, not the header's hour")
        #expect(transport.requests.count == 2)
    }

    @Test func aGraphQLQueryUsesTheKitsDefault() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            try fixture.container.install([NotesKit()])
            _ = try await fixture.client.fetch(AccountsQuery())
            // The positive control: within the kit's 10 s the query is a cache hit…
            fixture.clock.advance(by: 9)
            #expect(try await fixture.client.fetch(AccountsQuery()).source == .cache)
            // …and past them it goes to the network.
            fixture.clock.advance(by: 2)
            #expect(try await fixture.client.fetch(AccountsQuery()).source == .network)
        }
    }
}
