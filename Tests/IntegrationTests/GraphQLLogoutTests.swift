import APICore
import APICoreGraphQL
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// The GraphQL cache on disk (SQLite) obeys the logout rule with the rest: nothing of the user is
/// left in memory, in the file, or after a relaunch.
@Suite(.timeLimit(.minutes(10))) struct GraphQLLogoutTests {
    struct ProfileQuery: GraphQLQuery {
        static let document = "query Profile { me { id email } }"
    }

    struct UserKeys: CacheKeyProvider {
        let typenames: Set<String> = ["User"]
        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            object["id"]?.stringValue.map { NormalizedCacheKey("User:\($0)") }
        }
    }

    struct ProfileKit: FeatureKit {
        let name = "profile"
        func register(in registry: KitRegistry) throws(ContainerError) { try registry.addCacheKeyProvider(UserKeys()) }
    }

    @Test func logoutLeavesNothingOfTheUserInTheSQLiteStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("graphql/records.sqlite")
        let transport = RecordingTransport()
        transport.stub(
            .post, "/graphql", status: 200,
            body: Data(
                #"{"data":{"__typename":"Query","me":{"__typename":"User","id":"u1","email":"alice-secret@example.com"}}}"#.utf8))
        let environment = CacheEnvironment(clock: ManualClock(), cachesDirectory: directory.url)
        let unified = UnifiedCacheManager(timeouts: environment.timeouts)
        let container = DependencyContainer(cacheManager: unified)
        try container.install([ProfileKit()])
        let client = GraphQLClient(
            configuration: .init(
                endpoint: try #require(URL(string: "https://api.example.com/graphql")), transport: transport,
                environment: environment, tokenProvider: StaticTokenProvider(Credentials(accessToken: "t", userId: "alice")),
                container: container, store: try SQLiteRecordStore(url: url)))
        unified.register(client)

        _ = try await client.fetch(ProfileQuery())
        #expect(directory.anyFileContains("alice-secret@example.com"))

        let report = await unified.clearAllCaches()
        #expect(report.isComplete && report.succeeded == ["graphql"])
        #expect(!directory.anyFileContains("alice-secret@example.com"))
        #expect(throws: CacheReadMiss.self) { try client.readLocal(ProfileQuery()) }
        #expect(try SQLiteRecordStore(url: url).usage().count == 0)
    }
}
