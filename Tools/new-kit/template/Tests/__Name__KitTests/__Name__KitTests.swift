import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing
import __Name__Kit
import __Name__KitTesting

@Suite(.timeLimit(.minutes(1))) struct __Name__KitTests {
    /// A client over a recording transport, with a manual clock and caches in a temporary folder.
    struct Fixture {
        let clock = ManualClock()
        let transport = RecordingTransport()
        let directory: TemporaryDirectory
        let rest: RESTClient
        let unified: UnifiedCacheManager

        init() throws {
            directory = try TemporaryDirectory()
            let environment = CacheEnvironment(clock: clock, cachesDirectory: directory.url)
            rest = RESTClient(configuration: .init(
                baseURL: try #require(URL(string: "https://api.example.com")), transport: transport, environment: environment,
                tokenProvider: StaticTokenProvider(Credentials(accessToken: "token", userId: "u1")), retry: .none))
            unified = UnifiedCacheManager(timeouts: environment.timeouts)
        }
    }

    @Test func theKitRegistersItsClientTimeoutAndMutation() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let container = DependencyContainer(cacheManager: fixture.unified)
        try container.install([__Name__FeatureKit(rest: fixture.rest)])
        try container.verify()
        _ = try container.resolver(for: "app").resolve(__Name__Client.self)
        #expect(container.defaultTimeout(forFeature: __Name__Client.feature) == .seconds(300))
        #expect(container.mutationPolicy(forMutation: __Name__Client.addMutation) == .queueable)
    }

    @Test func itemsAreServedFromTheCacheForFiveMinutesWithTheirAge() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try __Name__Responses.stubItems([__Name__Item(id: "1", title: "First")], on: fixture.transport)
        let client = __Name__Client(rest: fixture.rest)
        let first = try await client.items()
        #expect(first.source == .network && first.value.map(\.id) == ["1"])
        fixture.clock.advance(by: 60)
        let second = try await client.items()
        #expect(second.source == .cache && second.freshness.age == 60)
        #expect(fixture.transport.requests.count == 1)
    }

    @Test func aMalformedBodyIsATypedErrorNamingWhereItFailed() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/api/__name__", status: 200, body: Data(#"[{"id": 1}]"#.utf8))
        await #expect(throws: APIError.self) { _ = try await __Name__Client(rest: fixture.rest).items() }
    }

    @Test func addingWithoutAQueueFailsClearly() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        await #expect(throws: MutationQueueError.signedOut) { try await __Name__Client(rest: fixture.rest).add(title: "x") }
    }
}
