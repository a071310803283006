import APICore
import APICoreREST
import AccountsKit
import CacheKit
import CacheKitTesting
import CatalogKit
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// The first frame of a relaunch (REQ AUTH-4): the first screen as the user last saw it, read from its
/// snapshot before the app is composed, for that user alone, and gone at logout.
@Suite(.timeLimit(.minutes(10))) struct FirstScreenSnapshotTests {
    static let quiet: Logger = {
        var logger = Logger(label: "first-screen-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with an app over a backend of its own, its caches in a temporary folder, signed in as
    /// Alice after `signedOut` ran.
    static func withApp(
        signedOut: (URL) -> Void = { _ in }, _ body: (DemoComposition, URL) async throws -> Void
    ) async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let caches = folder.url.appendingPathComponent("caches")
            let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
            signedOut(caches)
            _ = try await app.signIn()
            try await body(app, caches)
        }
    }

    @Test func aRelaunchDrawsTheLastFirstScreenWhichTheCachesThenShowAgain() async throws {
        try await Self.withApp(signedOut: { caches in
            #expect(Composition.lastFirstScreen(cachesDirectory: caches) == nil, "signed out: nothing to draw")
        }) { app, caches in
            let before = app.clock.now()
            let shown = try await app.composition.firstScreen()
            #expect(shown.catalog.source == .network && !shown.catalog.value.funnels.isEmpty)
            #expect(!shown.dashboard.value.accounts.isEmpty)

            let last = try #require(Composition.lastFirstScreen(cachesDirectory: caches))
            #expect(last.value == FirstScreen(catalog: shown.catalog.value, dashboard: shown.dashboard.value))
            #expect(last.savedAt >= before && last.savedAt <= app.clock.now())
            // Drawn only while the session may be used offline (security review two, finding 5): not past
            // the grace, not with the clock set back before the sign-in.
            let grace = SessionManager.Configuration.defaultOfflineGrace
            #expect(Composition.lastFirstScreen(cachesDirectory: caches, now: Date().addingTimeInterval(4 * 86_400)) == nil)
            #expect(Composition.lastFirstScreen(cachesDirectory: caches, now: Date().addingTimeInterval(-86_400)) == nil)
            #expect(Composition.lastFirstScreen(cachesDirectory: caches, offlineGrace: grace, now: Date().addingTimeInterval(60)) != nil)

            let relaunched = try DemoComposition(baseURL: app.baseURL, cachesDirectory: caches, logger: Self.quiet)
            let check = relaunched.session.launchOfflineFirst()
            let again = try await relaunched.composition.firstScreen()
            await check?.value
            #expect(again.catalog.source == .cache, "the catalog's pages are kept on disk")
            #expect(FirstScreen(catalog: again.catalog.value, dashboard: again.dashboard.value) == last.value)
        }
    }

    /// The attack: Alice's snapshot put in Bob's folder (a restored backup, a file copied by another app)
    /// is never drawn for Bob.
    @Test func anotherUsersSnapshotIsNeverDrawn() async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let alicesCaches = folder.url.appendingPathComponent("alice/caches")
            let bobsCaches = folder.url.appendingPathComponent("bob/caches")
            let alice = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: alicesCaches, logger: Self.quiet)
            _ = try await alice.signIn()
            _ = try await alice.composition.firstScreen()
            let bob = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: bobsCaches, logger: Self.quiet)
            _ = try await bob.signIn(email: "bob@example.com", password: "Password2")
            let copied = bobsCaches.appendingPathComponent("snapshots")
            try ProtectedFiles.createDirectory(copied)
            try FileManager.default.copyItem(
                at: alicesCaches.appendingPathComponent("snapshots/first-screen.snapshot"),
                to: copied.appendingPathComponent("first-screen.snapshot"))
            #expect(Composition.lastFirstScreen(cachesDirectory: bobsCaches) == nil)
            #expect(Composition.lastFirstScreen(cachesDirectory: alicesCaches) != nil, "Alice still gets hers")
        }
    }

    /// A payment after the first screen was shown changes the balance; going to the background saves the
    /// snapshot again from the caches, with no request, so the next launch does not draw the old balance.
    @Test func goingToTheBackgroundSavesWhatChangedSinceTheScreenWasShown() async throws {
        try await Self.withApp { app, caches in
            let shown = try await app.composition.firstScreen()
            let account = try #require(shown.dashboard.value.accounts.first)
            let receipt = try await app.accounts.makePayment(accountId: account.id, amount: 1_00)
            #expect(receipt.newBalance == account.balance - 1_00)
            _ = await receipt.background?.value
            let before = Composition.lastFirstScreen(cachesDirectory: caches)?.value.dashboard.accounts.first { $0.id == account.id }
            #expect(before?.balance == account.balance, "the snapshot is what the screen showed")

            let requests = app.transport.count("/graphql") + app.transport.count("/api/funnels/catalog")
            await app.composition.didEnterBackground()
            #expect(app.transport.count("/graphql") + app.transport.count("/api/funnels/catalog") == requests, "no request")
            let after = Composition.lastFirstScreen(cachesDirectory: caches)?.value.dashboard.accounts.first { $0.id == account.id }
            #expect(after?.balance == receipt.newBalance)
        }
    }

    @Test func logoutLeavesNoSnapshotBehind() async throws {
        try await Self.withApp { app, caches in
            _ = try await app.composition.firstScreen()
            #expect(FileManager.default.fileExists(atPath: caches.appendingPathComponent("snapshots/first-screen.snapshot").path))
            let (report, _) = await app.logOut()
            #expect(report.failed.isEmpty && report.succeeded.contains("snapshots"))
            #expect(!FileManager.default.fileExists(atPath: caches.appendingPathComponent("snapshots").path))
            _ = try await app.signIn()
            #expect(Composition.lastFirstScreen(cachesDirectory: caches) == nil, "the same user signing in again starts with none")
        }
    }
}
