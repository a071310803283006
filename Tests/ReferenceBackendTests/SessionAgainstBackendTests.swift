import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// SessionKit against the reference backend on 127.0.0.1: launch validation, expiry, logout and
/// user isolation, with the REST cache on disk and the GraphQL records in SQLite, all in a
/// temporary folder of their own (the backend's data lives elsewhere).
@Suite(.timeLimit(.minutes(10))) struct SessionAgainstBackendTests {
    /// A session and both clients, their caches in `directory`.
    struct App {
        let directory: TemporaryDirectory
        let tokenFile: URL
        let unified: UnifiedCacheManager
        let session: SessionManager
        let rest: RESTClient
        let graphQL: GraphQLClient

        init(
            backend: ReferenceBackend, directory: TemporaryDirectory, connectivity: TransportConnectivity? = nil,
            transport: any HTTPTransport = URLSessionTransport()
        ) throws {
            self.directory = directory
            var logger = Logger(label: "session-test")
            logger.logLevel = .critical
            let environment = CacheEnvironment(logger: logger, cachesDirectory: directory.url.appendingPathComponent("caches"))
            unified = UnifiedCacheManager(timeouts: environment.timeouts, logger: logger)
            let events = AuthEvents()
            tokenFile = directory.url.appendingPathComponent("session/token.json")
            session = SessionManager(
                configuration: .init(
                    baseURL: backend.baseURL, transport: connectivity?.observing(transport) ?? transport,
                    tokenStore: FileTokenStore(url: tokenFile), caches: unified, authEvents: events,
                    requestTimeout: TestDeadline.request, logger: logger, connectivity: connectivity))
            rest = RESTClient(
                configuration: .init(
                    baseURL: backend.baseURL, environment: environment, tokenProvider: session,
                    retry: .none, authEvents: events))
            let container = DependencyContainer(cacheManager: unified)
            try container.install([AccountKeys()])
            graphQL = GraphQLClient(
                configuration: .init(
                    endpoint: backend.baseURL.appendingPathComponent("graphql"), environment: environment, tokenProvider: session,
                    container: container,
                    store: try SQLiteRecordStore(url: directory.url.appendingPathComponent("caches/records.sqlite")),
                    retry: .none, authEvents: events))
            unified.register(rest.cacheParticipant)
            unified.register(graphQL)
        }

        /// A catalog page kept on disk (uplifted) and both accounts' balances in SQLite.
        func fillCaches() async throws {
            let page = APIRequest<Data>(
                path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "5")],
                cacheable: Cacheable(key: "catalog", timeout: .seconds(300), isUplifted: true))
            _ = try await rest.send(page)
            _ = try await graphQL.fetch(Balance(id: "100"))
            _ = try await graphQL.fetch(Balance(id: "1002"))
            _ = try await graphQL.fetch(Profile())
        }

        func entryCount() async -> Int {
            await unified.statistics().reduce(0) { $0 + $1.usage.count }
        }
    }

    struct Balance: GraphQLQuery {
        static let document = "query Balance($id: ID!) { account(id: $id) { id name balance } }"
        var id: String
        var variables: [String: JSONValue] { ["id": .string(id)] }
    }

    struct Profile: GraphQLQuery {
        static let document = "query Profile { me { id name email } }"
    }

    struct AccountKeys: FeatureKit, CacheKeyProvider {
        let name = "accounts-test"
        let typenames: Set<String> = ["Account", "User"]

        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            guard let id = object["id"]?.stringValue else { return nil }
            return NormalizedCacheKey("\(typename):\(id)", accountId: typename == "Account" ? id : nil)
        }

        func register(in registry: KitRegistry) throws(ContainerError) {
            try registry.addCacheKeyProvider(self)
        }
    }

    static func withApp(_ body: (App, BackendFixture) async throws -> Void) async throws {
        try await withBackend { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try await body(try App(backend: fixture.backend, directory: directory), fixture)
        }
    }

    @Test func launchWithAValidTokenSignsInAndWithAnExpiredOneSignsOut() async throws {
        try await Self.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            let relaunched = try App(backend: fixture.backend, directory: app.directory)
            await relaunched.session.launch()
            #expect(relaunched.session.current.user?.userId == "u1")
            #expect(relaunched.session.current.user?.expiresAt != nil)

            #expect(try await fixture.send(.post, "/admin/sessions/u1/expire", json: "").status == 204)
            let again = try App(backend: fixture.backend, directory: app.directory)
            await again.session.launch()
            #expect(again.session.current == .signedOut)
            #expect(!FileManager.default.fileExists(atPath: again.tokenFile.path))
        }
    }

    @Test func aMalformedTokenAtLaunchIsRefusedAndCleared() async throws {
        try await Self.withApp { app, _ in
            try FileTokenStore(url: app.tokenFile).save(StoredToken(accessToken: "not.a.token", userId: "u1", expiresAt: nil))
            await app.session.launch()
            #expect(app.session.current == .signedOut)
            #expect(try FileTokenStore(url: app.tokenFile).load() == nil)
        }
    }

    @Test func aLaunchThatWentOfflineIsRevalidatedByItselfWhenTheNetworkReturns() async throws {
        try await Self.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            #expect(
                try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/auth/validate","dropConnection":true}]"#).status
                    == 204)
            let sleeper = ManualSleeper()
            let connectivity = TransportConnectivity(probe: fixture.backend.baseURL.appendingPathComponent("health"), sleeper: sleeper)
            let relaunched = try App(backend: fixture.backend, directory: app.directory, connectivity: connectivity)
            await relaunched.session.launch()
            #expect(relaunched.session.current.user != nil && connectivity.status == .offline)
            guard case .offline = relaunched.session.current else {
                Issue.record("expected offline, got \(relaunched.session.current)")
                return
            }
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            try await waitUntil("the probe waits") { !sleeper.delays.isEmpty }
            sleeper.wakeAll()
            try await waitUntil("signed in again without a call to revalidate()") {
                if case .signedIn = relaunched.session.current { true } else { false }
            }
            #expect(connectivity.status == .online)
        }
    }

    @Test func theBackendDownAtLaunchIsOfflineThenRecovers() async throws {
        try await Self.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            #expect(
                try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/auth/validate","dropConnection":true}]"#).status
                    == 204)
            let relaunched = try App(backend: fixture.backend, directory: app.directory)
            await relaunched.session.launch()
            #expect(
                relaunched.session.current == .offline(SignedInUser(userId: "u1", expiresAt: relaunched.session.current.user?.expiresAt)))
            #expect(FileManager.default.fileExists(atPath: relaunched.tokenFile.path), "offline keeps the token")

            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            await relaunched.session.revalidate()
            #expect(relaunched.session.current.user?.userId == "u1")
            guard case .signedIn = relaunched.session.current else {
                Issue.record("expected signed in, got \(relaunched.session.current)")
                return
            }
        }
    }

    @Test func aForced401MidSessionExpiresOnceAndLeavesNothingOnDisk() async throws {
        try await Self.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            #expect(app.directory.anyFileContains("Checking"), "the account name is cached on disk")
            var states = app.session.states().makeAsyncIterator()
            _ = await states.next()

            #expect(try await fixture.send(.post, "/admin/sessions/u1/expire", json: "").status == 204)
            await withTaskGroup(of: Void.self) { group in
                for id in ["100", "1002", "100", "1002"] {
                    group.addTask { _ = try? await app.graphQL.fetch(Balance(id: id), policy: .fetchIgnoringCacheData) }
                }
                group.addTask { _ = try? await app.rest.send(APIRequest<Data>(path: "/api/me")) }
            }
            let expired = await states.next()
            let expiry = try #require(expired?.expiry)
            #expect(expiry.status == 401)
            // The first refused request names the expiry: one of the GraphQL fetches or the REST call.
            #expect(["/graphql", "/api/me"].contains(expiry.path), "the expiry names \(expiry.path)")
            #expect(await app.entryCount() == 0)
            #expect(!FileManager.default.fileExists(atPath: app.tokenFile.path))
            #expect(!app.directory.anyFileContains("Checking"), "no cached account is left on disk")
            #expect(!app.directory.anyFileContains("funnel-"), "no cached catalog page is left on disk")

            // No second expiry follows from the other refused requests.
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            #expect(await states.next()?.user?.userId == "u1")
        }
    }

    @Test func logoutWhileTheServerFailsStillClearsEverything() async throws {
        try await Self.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            #expect(try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/auth/logout","status":500}]"#).status == 204)
            let report = await app.session.logOut()
            #expect(report.isComplete)
            #expect(app.session.current == .signedOut)
            #expect(await app.entryCount() == 0)
            #expect(!FileManager.default.fileExists(atPath: app.tokenFile.path))
            #expect(!app.directory.anyFileContains("Checking"))
        }
    }

    @Test func userBNeverReadsUserAsEntries() async throws {
        try await Self.withApp { app, _ in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            await app.session.logOut()
            try await app.session.signIn(email: "bob@example.com", password: "Password2")
            await #expect(throws: APIError.notCached()) {
                try await app.graphQL.fetch(Balance(id: "100"), policy: .returnCacheDataDontFetch)
            }
            await #expect(throws: APIError.notCached()) {
                try await app.graphQL.fetch(Profile(), policy: .returnCacheDataDontFetch)
            }
            let page = APIRequest<Data>(
                path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "5")],
                cacheable: Cacheable(key: "catalog", timeout: .seconds(300), isUplifted: true))
            await #expect(throws: APIError.notCached()) { try await app.rest.send(page, policy: .returnCacheDataDontFetch) }
            let profile = try await app.graphQL.fetch(Profile())
            #expect(profile.data["me"]?["id"]?.stringValue == "u2")
        }
    }

    @Test func anAccountSwitchKeepsTheProfileAndDropsTheAccountsBalance() async throws {
        try await Self.withApp { app, _ in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            let report = await app.session.switchAccount(from: "100")
            #expect(report.isComplete)
            await #expect(throws: APIError.notCached()) {
                try await app.graphQL.fetch(Balance(id: "100"), policy: .returnCacheDataDontFetch)
            }
            #expect(try await app.graphQL.fetch(Balance(id: "1002"), policy: .returnCacheDataDontFetch).source == .cache)
            #expect(try await app.graphQL.fetch(Profile(), policy: .returnCacheDataDontFetch).data["me"]?["id"]?.stringValue == "u1")
        }
    }
}
