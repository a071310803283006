import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing
import __Name__Kit
import __Name__KitTesting

@Suite(.timeLimit(.minutes(10))) struct __Name__KitTests {
    /// The kit installed in a container as the app does, over a recording transport, with a manual clock and
    /// caches in a temporary folder.
    struct Fixture {
        let clock = ManualClock()
        let transport = RecordingTransport()
        let directory: TemporaryDirectory
        let environment: CacheEnvironment
        let rest: RESTClient
        let graphQL: GraphQLClient
        let unified: UnifiedCacheManager
        let container: DependencyContainer
        let client: __Name__Client

        init() throws {
            directory = try TemporaryDirectory()
            environment = CacheEnvironment(clock: clock, cachesDirectory: directory.url)
            let baseURL = try #require(URL(string: "https://api.example.com"))
            let user = StaticTokenProvider(Credentials(accessToken: "token", userId: "u1"))
            rest = RESTClient(configuration: .init(
                baseURL: baseURL, transport: transport, environment: environment, tokenProvider: user, retry: .none))
            unified = UnifiedCacheManager(timeouts: environment.timeouts)
            container = DependencyContainer(cacheManager: unified)
            graphQL = GraphQLClient(configuration: .init(
                endpoint: baseURL.appendingPathComponent("graphql"), transport: transport, environment: environment,
                tokenProvider: user, container: container, retry: .none))
            try container.install([try __Name__FeatureKit(rest: rest, environment: environment)])
            let graphQL = self.graphQL
            try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
            try container.verify()
            unified.register(graphQL)
            client = try container.resolver(for: "app").resolve(__Name__Client.self)
        }
    }

    @Test func theKitRegistersItsClientTimeoutAndMutation() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        #expect(fixture.container.defaultTimeout(forFeature: __Name__Client.feature) == .seconds(300))
        #expect(fixture.container.mutationPolicy(forMutation: __Name__Client.addMutation) == .queueable)
    }

    @Test func itemsAreServedFromTheCacheForFiveMinutesWithTheirAge() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try __Name__Responses.stubItems([__Name__Item(id: "1", title: "First")], on: fixture.transport)
        let first = try await fixture.client.items()
        #expect(first.source == .network && first.value.map(\.id) == ["1"])
        fixture.clock.advance(by: 60)
        let second = try await fixture.client.items()
        #expect(second.source == .cache && second.freshness.age == 60)
        #expect(fixture.transport.requests.count == 1)
    }

    @Test func aMalformedBodyIsATypedErrorNamingWhereItFailed() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/api/__name__", status: 200, body: Data(#"[{"id": 1}]"#.utf8))
        // Not any error: the decoding error, naming where the body stopped fitting the type.
        await #expect {
            _ = try await fixture.client.items()
        } throws: { error in
            guard case .decoding(let path, let reason)? = error as? APIError else { return false }
            return path == "[0].id" && reason.hasPrefix("expected String")
        }
    }

    @Test func anItemOverGraphQLIsKeyedByTheKitAndServedFromTheCache() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        __Name__Responses.stubItem(__Name__Item(id: "7", title: "Seventh"), on: fixture.transport)
        #expect(try await fixture.client.item(id: "7").title == "Seventh")
        #expect(try await fixture.client.item(id: "7", policy: .returnCacheDataDontFetch).title == "Seventh")
        #expect(fixture.transport.requests.count == 1)
        // The export redacts ids (`__Name__Item:#1f2e…`); the type prefix shows the kit's key was used.
        let keys = try await fixture.graphQL.exportEntries().map(\.key)
        #expect(keys.contains { $0.hasPrefix("__Name__Item:") }, "stored under the kit's key, not a path: \(keys)")
    }

    @Test func theDraftIsTheUsersOwnAndLogoutClearsIt() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.client.saveDraft("Buy milk")
        #expect(try await fixture.client.draft() == "Buy milk")
        let report = await fixture.unified.clearAllCaches()
        #expect(report.isComplete)
        #expect(try await fixture.client.draft() == nil)
    }

    @Test func anotherKitResolvesTheUseCaseThroughTheContainer() throws {
        /// A kit that uses __Name__Kit's client without importing its internals.
        struct ReaderFeatureKit: FeatureKit {
            struct Reader: Sendable { let client: __Name__Client }
            let name = "reader"
            func register(in registry: KitRegistry) throws(ContainerError) {
                registry.require(__Name__Client.self)
                try registry.register(Reader.self) { resolver in Reader(client: try resolver.resolve(__Name__Client.self)) }
            }
        }
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.container.install([ReaderFeatureKit()])
        try fixture.container.verify()
        let reader = try fixture.container.resolver(for: "app").resolve(ReaderFeatureKit.Reader.self)
        #expect(reader.client === fixture.client)
    }

    @Test func aSecondKitClaimingTheItemTypenameIsRefusedAndNothingIsInstalled() throws {
        struct Rival: FeatureKit {
            let name = "rival"
            func register(in registry: KitRegistry) throws(ContainerError) {
                try registry.addCacheKeyProvider(__Name__Keys())
            }
        }
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        #expect(throws: ContainerError.duplicateTypename(__Name__Keys.itemTypename, kits: ["__name__", "rival"])) {
            try fixture.container.install([Rival()])
        }
        // All or nothing: the refused kit left nothing behind, so a corrected retry works.
        struct Fixed: FeatureKit {
            let name = "rival"
            func register(in registry: KitRegistry) throws(ContainerError) {}
        }
        try fixture.container.install([Fixed()])
    }

    @Test func addingWithoutAQueueFailsClearly() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        await #expect(throws: MutationQueueError.signedOut) { try await fixture.client.add(title: "x") }
    }
}
