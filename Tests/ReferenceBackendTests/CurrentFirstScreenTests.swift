import APICore
import APICoreGraphQL
import APICoreREST
import AccountsKit
import CacheKit
import CacheKitTesting
import CatalogKit
import Foundation
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// The first screen's snapshot as the first screen itself (REQ AUTH-4): current at a relaunch only when the caches
/// served it fresh, no store changed since, and its freshness has not ended.
@Suite(.timeLimit(.minutes(10))) struct CurrentFirstScreenTests {
    /// An app over a backend of its own whose GraphQL records are kept in a file, as a relaunch finds them.
    static func app(_ backend: URL, _ folder: TemporaryDirectory) throws -> DemoComposition {
        try DemoComposition(
            baseURL: backend, cachesDirectory: folder.url.appendingPathComponent("caches"), logger: FirstScreenSnapshotTests.quiet,
            graphQLStore: SQLiteRecordStore(url: folder.url.appendingPathComponent("caches/graphql/records.sqlite")))
    }

    /// Runs `body` with an app signed in as Alice that showed the first screen (from the network) and went to
    /// the background (which saved it again from the caches), and a way to relaunch it over the same files.
    static func withAppThatWentToTheBackground(
        _ body: (DemoComposition, URL, () throws -> DemoComposition) async throws -> Void
    ) async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let caches = folder.url.appendingPathComponent("caches")
            let app = try Self.app(fixture.backend.baseURL, folder)
            _ = try await app.signIn()
            _ = try await app.composition.firstScreen()
            #expect(Composition.lastFirstScreen(cachesDirectory: caches)?.isCurrent == false, "read from the network: the stores changed")
            await app.composition.didEnterBackground()
            try await body(app, caches) { try Self.app(fixture.backend.baseURL, folder) }
        }
    }

    @Test func aFirstScreenReadFreshFromTheCachesIsCurrentAtTheNextLaunchAndIsWhatTheyAnswer() async throws {
        try await Self.withAppThatWentToTheBackground { _, caches, relaunch in
            let last = try #require(Composition.lastFirstScreen(cachesDirectory: caches))
            #expect(last.isCurrent, "saved from the caches, fresh, nothing changed during the read")
            #expect(
                Composition.lastFirstScreen(cachesDirectory: caches, now: Date().addingTimeInterval(600))?.isCurrent == false,
                "past the dashboard's five minutes")

            let relaunched = try relaunch()
            let check = relaunched.session.launchOfflineFirst()
            let requests = relaunched.transport.count("/graphql") + relaunched.transport.count("/api/funnels/catalog")
            let answered = try await relaunched.composition.firstScreen()
            await check?.value
            #expect(answered.catalog.source == .cache && answered.dashboard.source == .cache)
            #expect(relaunched.transport.count("/graphql") + relaunched.transport.count("/api/funnels/catalog") == requests)
            #expect(
                FirstScreen(catalog: answered.catalog.value, dashboard: answered.dashboard.value) == last.value,
                "a current snapshot is what the caches answer")
            #expect(Composition.lastFirstScreen(cachesDirectory: caches)?.isCurrent == true, "read fresh again: sealed again")

            // The catalog's page stored again (a reload): its HTTP cache's change unseals the snapshot.
            _ = try await relaunched.catalog.page(policy: .fetchIgnoringCacheData)
            #expect(Composition.lastFirstScreen(cachesDirectory: caches)?.isCurrent == false)
        }
    }

    /// Records kept in memory only (the default: financial data stays in memory) are gone at the next launch:
    /// a snapshot read from them is never current.
    @Test func recordsKeptInMemoryOnlyNeverMakeItCurrent() async throws {
        try await FirstScreenSnapshotTests.withApp { app, caches in
            _ = try await app.composition.firstScreen()
            await app.composition.didEnterBackground()
            let last = try #require(Composition.lastFirstScreen(cachesDirectory: caches))
            #expect(!last.isCurrent)
        }
    }

    /// The attack: a payment made after the snapshot was sealed, and the app killed before it went to the
    /// background again. The next launch must not take the old balance for current.
    @Test func aPaymentUnsealsTheSnapshotBeforeItsBalanceIsWritten() async throws {
        try await Self.withAppThatWentToTheBackground { app, caches, relaunch in
            let sealed = try #require(Composition.lastFirstScreen(cachesDirectory: caches))
            #expect(sealed.isCurrent)

            let account = try #require(sealed.value.dashboard.accounts.first)
            let receipt = try await app.accounts.makePayment(accountId: account.id, amount: 1_00)
            _ = await receipt.background?.value
            let after = try #require(Composition.lastFirstScreen(cachesDirectory: caches))
            #expect(!after.isCurrent, "the payment's write unsealed it")
            #expect(after.value == sealed.value, "the picture is still the last one shown, drawn with its age")

            let relaunched = try relaunch()
            let check = relaunched.session.launchOfflineFirst()
            let answered = try await relaunched.composition.firstScreen()
            await check?.value
            #expect(answered.dashboard.value.accounts.first { $0.id == account.id }?.balance == receipt.newBalance)
        }
    }
}
