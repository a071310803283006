import APICore
import APICoreOffline
import AccountsKit
import CacheKit
import CacheKitTesting
import CatalogKit
import ContactsKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// The app over its life, through the real composition against the reference backend: every end of a
/// session (an expiry, a logout, another user's sign-in) leaves the next user none of the queue's state,
/// and a refusal outlives a restart until its kit settles it.
@Suite(.timeLimit(.minutes(10))) struct AppLifeTests {
    static var quiet: Logger {
        var logger = Logger(label: "app-life")
        logger.logLevel = .critical
        return logger
    }

    /// Every favorites request dropped, as if offline: a change made now stays queued.
    static let dropFavorites = #"[{"pathPrefix":"/api/favorites","dropConnection":true}]"#

    /// What a wait for the queue's state ran out of time on.
    struct QueueWaitTimedOut: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out after \(TestDeadline.wait) waiting for \(what)" }
    }

    /// Waits for a state of `app`'s queue that `matching` accepts, as a screen observing it would (no
    /// polling), at most ``TestDeadline/wait``.
    static func waitForQueue(
        _ app: DemoComposition, _ what: String, _ matching: @escaping @Sendable (MutationQueueState) -> Bool
    ) async throws {
        let queue = app.queue
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in await queue.states() where matching(state) { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: TestDeadline.wait)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        guard found else { throw QueueWaitTimedOut(what: what) }
    }

    /// The queue's state as a screen sees it now.
    static func published(_ app: DemoComposition) async -> MutationQueueState? {
        await app.queue.states().first { _ in true }
    }

    /// A first run of the app in `directory`'s caches folder, signed in as Alice, whom it returns; a relaunch is
    /// a new composition on the same `caches`.
    static func firstRun(_ fixture: BackendFixture, in directory: TemporaryDirectory) async throws
        -> (caches: URL, app: DemoComposition, alice: String)
    {
        let caches = directory.url.appendingPathComponent("caches")
        let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
        return (caches, app, try await app.signIn())
    }

    /// Alice leaves a refused change and a pending one; whichever way her session ends, Bob, signed in next,
    /// sees none of them in any form the queue publishes, and Alice, back, finds hers.
    @Test(arguments: ["expiry", "logout", "another sign-in"])
    func theNextUserSeesNoneOfThePreviousUsersQueuedOrRefusedChanges(end: String) async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"), logger: Self.quiet)
            let alice = try await app.signIn()
            let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
            // Refused for good: no such funnel.
            try await app.favorites.setFavorite("no-such-funnel", true)
            try await Self.waitForQueue(app, "alice's change refused") { !$0.failures.isEmpty }
            // Kept: the server cannot be reached for favorites.
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.dropFavorites).status == 204)
            try await app.favorites.setFavorite(slug, true)
            try await Self.waitForQueue(app, "alice's change pending") { $0.pending.count == 1 }

            switch end {
            case "expiry":
                #expect(try await fixture.send(.post, "/admin/sessions/\(alice)/expire", json: "").status == 204)
                _ = try? await app.accounts.dashboard()
                #expect(await app.waitForSession { $0.expiry != nil } != nil, "the session never expired")
            case "logout":
                _ = await app.logOut()
            default:
                break
            }
            if end != "another sign-in" {
                let afterEnd = await Self.published(app)
                #expect(
                    afterEnd?.pending.isEmpty == true && afterEnd?.failures.isEmpty == true,
                    "after the \(end): \(String(describing: afterEnd))")
            }
            try await app.signIn(email: "bob@example.com", password: "Password2")
            let bobs = await Self.published(app)
            #expect(bobs?.pending.isEmpty == true, "Bob sees Alice's pending change after the \(end)")
            #expect(bobs?.failures.isEmpty == true, "Bob sees Alice's refusal after the \(end)")
            let bobsFailures = await app.queue.failures()
            let bobsPending = await app.queue.pending()
            #expect(bobsFailures.isEmpty && bobsPending.isEmpty)

            // Alice again, online: her pending change is sent, her refusal is still hers until settled.
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            try await app.signIn()
            let refusals = await app.queue.failures()
            #expect(refusals.map(\.mutation.name) == ["AddFavorite"], "alice's refusals: \(refusals)")
            #expect(refusals.first?.error.serverCode == "NOT_FOUND")
            try await waitUntil("alice's kept change sent") { try fixture.backend.catalog.favorites(userId: alice) == [slug] }
        }
    }

    /// A refusal that came before the process ended is read back at the next launch, with its error, and is
    /// gone only once settled: never taken for sent.
    @Test func aRefusalOutlivesARestartUntilItIsSettled() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let (caches, first, alice) = try await Self.firstRun(fixture, in: directory)
            try await first.favorites.setFavorite("no-such-funnel", true)
            try await Self.waitForQueue(first, "the change refused") { !$0.failures.isEmpty }
            await first.queue.stop()

            let relaunched = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
            await relaunched.composition.launch(offlineFirst: false)
            let published = await Self.published(relaunched)
            #expect(published?.failures.map(\.mutation.name) == ["AddFavorite"], "after the relaunch: \(String(describing: published))")
            let refusal = try #require(await relaunched.queue.failures().first)
            #expect(refusal.error.serverCode == "NOT_FOUND")
            await relaunched.queue.settle(refusal, of: alice)
            #expect(await relaunched.queue.failures().isEmpty)
            let again = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
            await again.composition.launch(offlineFirst: false)
            #expect(await again.queue.failures().isEmpty, "a settled refusal came back")
        }
    }

    /// Signed in, the user's address book arrives with no call but the sign-in; relaunched once it has, no
    /// first sync is needed again.
    @Test func theLaunchStartsTheFirstSyncOnlyWhenNoneHasCompleted() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let caches = directory.url.appendingPathComponent("caches")
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet, startsFirstSync: true)
            try await app.signIn()
            try await waitUntil("the first sync, started by the sign-in alone") {
                let list = try? await app.contacts.contacts()
                return list?.syncedAt != nil && list?.value.contacts.isEmpty == false
            }
            let relaunched = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet, startsFirstSync: true)
            await relaunched.composition.launch(offlineFirst: false)
            let contactsSync = try #require(relaunched.composition.container.syncRunners.first { $0.name == "contacts" })
            #expect(await contactsSync.runIfNeverCompleted() == nil, "a first sync asked for again after one completed")
        }
    }

    /// The launch as an app calls it (offline first, the default) answers before the server has: it shows the
    /// user's content while the token is checked, then starts the queue, which sends what the last run left
    /// with no other call.
    @Test func theDefaultLaunchAnswersAtOnceAndThenSendsWhatTheLastRunLeft() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let (caches, first, alice) = try await Self.firstRun(fixture, in: directory)
            let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.dropFavorites).status == 204)
            try await first.favorites.setFavorite(slug, true)
            try await Self.waitForQueue(first, "the change pending") { $0.pending.count == 1 }
            await first.queue.stop()
            // The token check takes five seconds: a launch that waited for it could not answer `validating`.
            let slowCheck = #"[{"pathPrefix":"/auth/validate","latencyMs":5000}]"#
            #expect(try await fixture.send(.put, "/admin/faults", json: slowCheck).status == 204)

            let relaunched = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
            let launched = await relaunched.composition.launch()
            #expect(launched == .validating, "the default launch waited for the server: \(launched)")
            try await waitUntil("the kept change sent by the launch alone, once the token was accepted") {
                try fixture.backend.catalog.favorites(userId: alice) == [slug]
            }
        }
    }

    /// An app's composition, built with its defaults, starts the first sync at sign-in; the tools' harness
    /// starts none of its own, so that its request counts stay exact.
    @Test func anAppsCompositionStartsTheFirstSyncByDefaultAndTheHarnessDoesNot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let api = try #require(URL(string: "http://127.0.0.1:9"))
        let app = try Composition(baseURL: api, cachesDirectory: directory.url.appendingPathComponent("app"), logger: Self.quiet)
        #expect(app.startsFirstSync)
        let harness = try DemoComposition(
            baseURL: api, cachesDirectory: directory.url.appendingPathComponent("harness"), logger: Self.quiet)
        #expect(!harness.composition.startsFirstSync)
    }
}
