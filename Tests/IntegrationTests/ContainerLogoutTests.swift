import APICore
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// Kits installed through the container: their caches and the REST client's HTTP cache are all
/// cleared by one `clearAllCaches()`, files included.
@Suite("Container and logout", .timeLimit(.minutes(10)))
struct ContainerLogoutTests {
    /// A kit with a disk-backed cache of its own.
    struct NotesKit: FeatureKit {
        let name = "notes"
        let notes: CacheManager<String>
        func register(in registry: KitRegistry) throws(ContainerError) {
            registry.addClearingParticipant(notes)
            registry.require(RESTClient.self)
        }
    }

    @Test("REST and kit caches registered through the container are cleared at logout, files included")
    func logoutThroughTheContainer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = CacheEnvironment(clock: ManualClock(), cachesDirectory: directory.url)
        let transport = RecordingTransport()
        transport.stub(.get, "/profile", status: 200, body: Data(#""ALICE-PROFILE""#.utf8))
        let client = RESTClient(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, environment: environment,
                tokenProvider: StaticTokenProvider(Credentials(accessToken: "a", userId: "alice"))))
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts))
        let app = container.registry(for: "app")
        try app.register(RESTClient.self) { _ in client }
        app.addClearingParticipant(client.cacheParticipant)
        let notes = try CacheManager<String>(feature: "notes", environment: environment, persistence: .disk())
        try container.install([NotesKit(notes: notes)])
        try container.verify()

        let profile = APIRequest<String>(path: "/profile", cacheable: Cacheable(key: "profile", timeout: .seconds(900), isUplifted: true))
        _ = try await container.resolver(for: "notes").resolve(RESTClient.self).send(profile)
        try await notes.set("ALICE-NOTE", forKey: "note:1", scope: .user("alice"))
        #expect(directory.anyFileContains("ALICE-PROFILE"))
        #expect(directory.anyFileContains("ALICE-NOTE"))

        let report = await container.cacheManager.clearAllCaches()
        #expect(report.succeeded == ["rest", "notes"])
        #expect(directory.files().isEmpty)
        await #expect(throws: APIError.notCached()) { try await client.send(profile, policy: .returnCacheDataDontFetch) }
    }
}
