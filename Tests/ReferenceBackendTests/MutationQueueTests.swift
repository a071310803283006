import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import Testing

/// The mutation queue against the reference backend on 127.0.0.1: changes made offline are kept on
/// disk, survive a restart, and reach the server once each, in order, with their user's token only.
@Suite(.timeLimit(.minutes(10))) struct MutationQueueTests {
    /// A queue over the app's REST client, in `directory`.
    struct App {
        let tokens: StaticTokenProvider
        let rest: RESTClient
        let queue: MutationQueue
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()))

        init(_ backend: ReferenceBackend, directory: TemporaryDirectory, credentials: Credentials?) {
            self.init(baseURL: backend.baseURL, directory: directory.url, credentials: credentials)
        }

        init(baseURL: URL, directory: URL, credentials: Credentials?) {
            var logger = Logger(label: "queue-test")
            logger.logLevel = .critical
            tokens = StaticTokenProvider(credentials)
            let environment = CacheEnvironment(logger: logger, cachesDirectory: directory.appendingPathComponent("caches"))
            rest = RESTClient(configuration: .init(baseURL: baseURL, environment: environment, tokenProvider: tokens, retry: .none))
            let graphQL = GraphQLClient(
                configuration: .init(
                    endpoint: baseURL.appendingPathComponent("graphql"), environment: environment, tokenProvider: tokens,
                    container: container, retry: .none))
            queue = MutationQueue(
                configuration: .init(
                    directory: directory.appendingPathComponent("mutations"), tokenProvider: tokens, rest: rest,
                    graphQL: graphQL, container: container, sleeper: RecordingSleeper(), logger: logger))
        }

        @discardableResult
        func favorite(_ slug: String, _ add: Bool = true) async throws -> QueuedMutation {
            try await queue.enqueue(
                .rest(method: add ? .put : .delete, path: "/api/favorites/\(slug)", headerFields: [:], body: nil),
                name: add ? "AddFavorite" : "RemoveFavorite")
        }
    }

    static let dropFavorites = #"[{"pathPrefix":"/api/favorites","dropConnection":true}]"#

    @Test func changesMadeOfflineSurviveARestartAndReachTheServerOnceInOrder() async throws {
        try await withBackend(20) { fixture in
            let alice = try await fixture.credentials()
            let slugs = try fixture.backend.catalog.allFunnels().prefix(3).map(\.slug)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.dropFavorites).status == 204)

            let offline = App(fixture.backend, directory: directory, credentials: alice)
            try await offline.favorite(slugs[0])
            try await offline.favorite(slugs[1])
            try await offline.favorite(slugs[0], false)
            let first = await offline.queue.replay()
            #expect(first.sent == 0 && first.remaining == 3 && first.stoppedBy?.reachedNoServer == true)
            #expect(await offline.queue.pending().first?.attempts == 1)
            #expect(await offline.queue.states().first { _ in true }?.message == "Will sync when online")

            // A restart: a new process opens the same folder; the network is back.
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            let relaunched = App(fixture.backend, directory: directory, credentials: alice)
            let keys = await relaunched.queue.pending().map(\.idempotencyKey)
            #expect(keys.count == 3)
            let report = await relaunched.queue.replay()
            #expect(report.sent == 3 && report.remaining == 0 && report.refused.isEmpty)
            let changes = try fixture.backend.catalog.favoriteChanges(userId: alice.userId)
            #expect(changes.map(\.slug) == [slugs[0], slugs[1], slugs[0]])
            #expect(changes.map(\.action) == ["add", "add", "remove"])
            #expect(changes.map(\.idempotencyKey) == keys, "each with the key chosen at enqueue")
            #expect(try fixture.backend.catalog.favorites(userId: alice.userId) == [slugs[1]])
        }
    }

    @Test func aRepeatOfAKeyIsAnsweredAgainAndAppliedOnce() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
            var answers: [TransportResponse] = []
            for _ in 0..<2 {
                let url = try #require(URL(string: fixture.backend.baseURL.absoluteString + "/api/favorites/\(slug)"))
                var fields: HTTPFields = [.authorization: "Bearer \(alice.accessToken)"]
                fields[try #require(HTTPField.Name("Idempotency-Key"))] = "key-1"
                answers.append(try await fixture.transport.send(TransportRequest(method: .put, url: url, headerFields: fields)))
            }
            #expect(answers.map(\.status) == [200, 200] && answers[0].body == answers[1].body)
            #expect(answers[1].headerFields[try #require(HTTPField.Name("Idempotent-Replayed"))] == "true")
            #expect(try fixture.backend.catalog.favoriteChanges(userId: alice.userId).count == 1)
        }
    }

    @Test func aRefusalIsPermanentReportedAndRemovedAndTheNextIsSent() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = App(fixture.backend, directory: directory, credentials: alice)
            try await app.favorite("no-such-funnel")
            try await app.favorite(slug)
            let report = await app.queue.replay()
            #expect(report.sent == 1 && report.remaining == 0)
            #expect(report.refused.map(\.mutation.name) == ["AddFavorite"])
            #expect(report.refused.first?.error.serverCode == "NOT_FOUND")
            #expect(try fixture.backend.catalog.favorites(userId: alice.userId) == [slug])
            // Kept in the user's file until settled: a new queue over the same folder (a restart) reads it back.
            let failures = await app.queue.failures()
            #expect(failures.map(\.mutation.name) == ["AddFavorite"] && failures.first?.error.serverCode == "NOT_FOUND")
            let relaunched = App(fixture.backend, directory: directory, credentials: alice)
            let kept = await relaunched.queue.failures()
            #expect(kept == failures, "after a restart: \(kept)")
        }
    }

    /// The pending list a screen shows is kept in memory once the queue changes: it is the signed-in user's
    /// only, also when another user signs in without the queue being told (an expiry, then a sign-in).
    @Test func thePendingListIsOnlyEverTheSignedInUsers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let alice = Credentials(accessToken: "token-a", userId: "alice")
        let bob = Credentials(accessToken: "token-b", userId: "bob")
        // Nothing is sent: the queue replays only when asked or started.
        let app = App(baseURL: try #require(URL(string: "http://127.0.0.1:1")), directory: directory.url, credentials: alice)
        try await app.favorite("sleep-quality-check")
        #expect(await app.queue.pending().map(\.name) == ["AddFavorite"])
        app.tokens.set(bob)
        #expect(await app.queue.pending().isEmpty, "Bob never sees Alice's pending change")
        app.tokens.set(alice)
        #expect(await app.queue.pending().map(\.name) == ["AddFavorite"])
    }

    @Test func aQueuedChangeIsNeverSentWithAnotherUsersToken() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.dropFavorites).status == 204)
            let app = App(fixture.backend, directory: directory, credentials: alice)
            try await app.favorite(slug)
            _ = await app.queue.replay()
            await app.queue.endSession(of: alice.userId, keepingQueue: true)
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)

            app.tokens.set(bob)
            let asBob = await app.queue.replay()
            #expect(asBob.sent == 0 && asBob.remaining == 0, "Bob's queue is empty; Alice's is not his")
            #expect(try fixture.backend.catalog.favoriteChanges(userId: bob.userId).isEmpty)
            #expect(try fixture.backend.catalog.favoriteChanges(userId: alice.userId).isEmpty)

            app.tokens.set(alice)
            #expect(await app.queue.replay().sent == 1, "kept for Alice's next sign-in")
            #expect(try fixture.backend.catalog.favorites(userId: alice.userId) == [slug])

            try await app.favorite(slug, false)
            await app.queue.endSession(of: alice.userId, keepingQueue: false)
            #expect(await app.queue.pending().isEmpty, "discarded at logout")
            await app.queue.erase(userId: alice.userId)
            #expect(!FileManager.default.fileExists(atPath: app.queue.fileURL(for: alice.userId).path))
        }
    }

    @Test func aMutationDeclaredRequiringAConnectionIsNeverQueued() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = App(fixture.backend, directory: directory, credentials: try await fixture.credentials())
            try app.container.install([PaymentsDeclaration()])
            await #expect(throws: MutationQueueError.requiresConnection(mutation: "MakePayment")) {
                try await app.queue.enqueue(
                    .graphQL(
                        document: "mutation MakePayment { makePayment(accountId: \"1\", amount: 1) { id } }",
                        variables: [:]), name: "payment")
            }
            let signedOut = App(fixture.backend, directory: directory, credentials: nil)
            await #expect(throws: MutationQueueError.signedOut) { try await signedOut.favorite("x") }
            #expect(await app.queue.pending().isEmpty)
        }
    }

    struct PaymentsDeclaration: FeatureKit {
        let name = "payments"
        func register(in registry: KitRegistry) throws(ContainerError) {
            registry.declareMutation("MakePayment", .requiresConnection)
        }
    }
}
