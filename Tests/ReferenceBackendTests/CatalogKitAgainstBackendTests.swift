import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import CacheKitTesting
import CatalogKit
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend
import Testing

/// CatalogKit against the reference backend on 127.0.0.1: the whole catalog at every page size,
/// changes between pages, refused cursors, the 5-minute cache, 304s, new ETags and pull-to-refresh.
/// The catalog cache lives on disk in a temporary folder; time is a manual clock.
@Suite(.timeLimit(.minutes(10))) struct CatalogKitAgainstBackendTests {
    struct App {
        let clock = ManualClock()
        let transport = CountingTransport(URLSessionTransport())
        let caches: TemporaryDirectory
        let client: CatalogClient

        init(_ backend: ReferenceBackend, caches: TemporaryDirectory? = nil) throws {
            self.caches = try caches ?? TemporaryDirectory()
            var logger = Logger(label: "catalog-backend-test")
            logger.logLevel = .critical
            client = CatalogClient(
                sharing: .init(
                    baseURL: backend.baseURL, transport: transport,
                    environment: CacheEnvironment(clock: clock, logger: logger, cachesDirectory: self.caches.url), retry: .none))
        }

        var requests: Int { transport.count() }
    }

    func slugs(_ backend: ReferenceBackend, activeOnly: Bool = false) throws -> [String] {
        try backend.catalog.allFunnels(activeOnly: activeOnly).map(\.slug)
    }

    @Test(arguments: [1, 7, 50, 100]) func everyPageSizeJoinsIntoTheBackendsOrderedCatalog(_ limit: Int) async throws {
        try await withBackend { fixture in
            let app = try App(fixture.backend)
            let listing = try await app.client.allPages(limit: limit)
            #expect(listing.funnels.map(\.slug) == (try slugs(fixture.backend)))
            #expect(listing.pageCount == (300 + limit - 1) / limit && app.requests == listing.pageCount)
            #expect(listing.pillars.flatMap(\.funnels).count + listing.uncategorizedFunnels.count == 300)
        }
    }

    @Test func aFunnelAddedBetweenPagesAppearsInItsPlaceAndNothingIsSkipped() async throws {
        try await withBackend { fixture in
            let app = try App(fixture.backend)
            let first = try await app.client.page(limit: 7)
            let cursorTitle = try #require(first.value.funnels.last?.title)
            // One that sorts after page 1 (seen in this walk), one before it (seen at the next revalidation).
            _ = try fixture.backend.catalog.add(slug: "zz-late", title: "Mood Zz", pillarId: "p1")
            _ = try fixture.backend.catalog.add(slug: "aa-early", title: "AAA First", pillarId: nil)
            #expect("Mood Zz".lowercased() > cursorTitle.lowercased())
            let walk = try await app.client.allPages(limit: 7)
            let expected = try slugs(fixture.backend)
            #expect(walk.funnels.map(\.slug) == expected.filter { $0 != "aa-early" })
            #expect(walk.funnels.contains { $0.slug == "zz-late" } && walk.sources[.cache] == 1)
            app.clock.advance(by: 301)
            let next = try await app.client.allPages(limit: 7)
            #expect(next.funnels.map(\.slug) == expected && next.funnels.first?.slug == "aa-early")
        }
    }

    @Test func aDeletedCursorFunnelGivesInvalidCursorAndOneRestart() async throws {
        try await withBackend { fixture in
            let app = try App(fixture.backend)
            let first = try await app.client.page(limit: 50)
            let cursorSlug = try #require(first.value.funnels.last?.slug)
            #expect(try fixture.backend.catalog.delete(slug: cursorSlug))
            await #expect(throws: CatalogError.self) {
                try await app.client.page(cursor: first.value.nextCursor, limit: 50)
            }
            let listing = try await app.client.allPages(limit: 50)
            #expect(listing.restarts == 1)
            #expect(listing.funnels.map(\.slug) == (try slugs(fixture.backend)))
            #expect(!listing.funnels.contains { $0.slug == cursorSlug })
        }
    }

    @Test func aSecondLoadWithinFiveMinutesIsFreeAndALaterOneIsA304() async throws {
        try await withBackend { fixture in
            let app = try App(fixture.backend)
            let first = try await app.client.allPages()
            #expect(first.sources == [.network: 6] && app.requests == 6)
            app.clock.advance(by: 299)
            let second = try await app.client.allPages()
            #expect(second.sources == [.cache: 6] && app.requests == 6 && second.funnels == first.funnels)
            app.clock.advance(by: 2)
            let third = try await app.client.allPages()
            #expect(third.sources == [.revalidated: 6] && app.requests == 12 && third.funnels == first.funnels)
            let http = try #require(try await app.client.cacheParticipant.statistics().first)
            #expect(http.counts.revalidations == 6 && http.counts.hits == 6 && http.counts.bytesSaved > 100_000)
        }
    }

    @Test func aChangedFunnelGivesAFullPageWithANewETag() async throws {
        try await withBackend { fixture in
            let app = try App(fixture.backend)
            let before = try await app.client.page()
            let eTag = try #require(before.headerFields[.eTag])
            let funnel = try #require(before.value.funnels.first)
            _ = try fixture.backend.catalog.update(slug: funnel.slug, title: nil, isActive: !(funnel.isActive ?? true))
            app.clock.advance(by: 301)
            let after = try await app.client.page()
            #expect(after.source == .network && after.headerFields[.eTag] != eTag)
            #expect(after.value.funnels.first?.isActive == !(funnel.isActive ?? true))
            #expect(after.value.funnels.first?.version == (funnel.version ?? 0) + 1)
            // The new page is what the cache now holds.
            #expect(try await app.client.page().value == after.value)
        }
    }

    @Test func pullToRefreshAlwaysReachesTheServer() async throws {
        try await withBackend(20) { fixture in
            let app = try App(fixture.backend)
            let model = CatalogListModel(client: app.client, limit: 5)
            await model.load()
            for _ in 0..<3 { await model.refresh() }
            #expect(app.requests == 4)
            _ = try fixture.backend.catalog.add(slug: "aaa", title: "AAA", pillarId: nil)
            await model.refresh()
            #expect(await model.current.listing.funnels.first?.slug == "aaa")
        }
    }

    @Test func aRelaunchShowsTheCachedPageAtOnceFromDisk() async throws {
        try await withBackend(20) { fixture in
            let first = try App(fixture.backend)
            await CatalogListModel(client: first.client, limit: 5).load()
            // A new process: new memory, same caches folder.
            let relaunched = try App(fixture.backend, caches: first.caches)
            let model = CatalogListModel(client: relaunched.client, limit: 5)
            var states = await model.states().makeAsyncIterator()
            await model.load()
            _ = await states.next()  // before loading
            _ = await states.next()  // loading
            let shown = await states.next()
            #expect(shown?.isFromCache == true && shown?.listing.funnels.count == 5)
            #expect(await model.current.listing.sources == [.cache: 1, .revalidated: 1])
        }
    }

    @Test(arguments: ["not-a-cursor", "eyJ0aXRsZSI6Ik5vcGUiLCJzbHVnIjoibm9wZSJ9", "%%%", "e30="])
    func aMalformedCursorIsATypedError(_ cursor: String) async throws {
        try await withBackend(10) { fixture in
            let app = try App(fixture.backend)
            await #expect(
                throws: CatalogError.invalidCursor(
                    message: "Pagination cursor is invalid or expired. Please restart from the first page.")
            ) {
                try await app.client.page(cursor: cursor)
            }
        }
    }

    @Test func aFilterIsSentAndAnUnknownOneIsTheServersTypedError() async throws {
        try await withBackend(60) { fixture in
            let app = try App(fixture.backend)
            let premium = try await app.client.allPages(limit: 7, filter: CatalogFilter(activeOnly: true, tier: "premium"))
            #expect(premium.funnels.map(\.slug) == (try fixture.backend.catalog.allFunnels(activeOnly: true, tier: "premium").map(\.slug)))
            await #expect(
                throws: CatalogError.api(
                    .server(
                        ServerError(
                            status: 400, code: "INVALID_FILTER", message: "tier must be free or premium.",
                            details: ["tier": .string("gold")])))
            ) {
                try await app.client.page(filter: CatalogFilter(tier: "gold"))
            }
        }
    }

    @Test func detailsAndDefinitionsAreCachedForFiveAndTenMinutes() async throws {
        try await withBackend(10) { fixture in
            let app = try App(fixture.backend)
            #expect(try await app.client.funnel(slug: "funnel-1").value.slug == "funnel-1")
            #expect(try await app.client.definition(slug: "funnel-1").value.steps.count == 5)
            app.clock.advance(by: 301)
            #expect(try await app.client.funnel(slug: "funnel-1").source == .revalidated)
            #expect(try await app.client.definition(slug: "funnel-1").source == .cache)
            app.clock.advance(by: 300)
            #expect(try await app.client.definition(slug: "funnel-1").source == .revalidated)
            await #expect(throws: CatalogError.notFound(slug: "nope")) { try await app.client.funnel(slug: "nope") }
            await #expect(throws: CatalogError.notFound(slug: "nope")) { try await app.client.definition(slug: "nope") }
        }
    }
}

/// Offline: the catalog list shows its last known pages, labelled with their age, after a relaunch
/// with the backend gone, although its pages are `must-revalidate`.
@Suite(.timeLimit(.minutes(10))) struct CatalogOfflineTests {
    @Test func aRelaunchOfflineShowsTheLastKnownFirstPageWithItsAgeAndTheError() async throws {
        let caches = try TemporaryDirectory()
        let fixture = try await BackendFixture.start()
        let online = try CatalogKitAgainstBackendTests.App(fixture.backend, caches: caches)
        let seen = try await online.client.page(limit: 20)
        await fixture.backend.stop()

        let relaunched = try CatalogKitAgainstBackendTests.App(fixture.backend, caches: caches)
        relaunched.clock.advance(by: 2 * 86_400)
        let model = CatalogListModel(client: relaunched.client, limit: 20)
        await model.load()
        let state = await model.current
        #expect(state.listing.funnels.map(\.slug) == seen.value.funnels.map(\.slug))
        #expect(state.isFromCache && state.status?.isOffline == true)
        #expect(state.status?.label == "Offline · last updated 2 d ago")
        #expect(state.error != nil, "the failure is reported too")
        caches.remove()
        fixture.directory.remove()
    }
}

/// Favorites changed offline through CatalogKit reach the server once, in order, when it returns.
@Suite(.timeLimit(.minutes(10))) struct CatalogFavoritesTests {
    @Test func favoritesChangedOfflineAreQueuedThenSyncedThroughTheKit() async throws {
        try await withBackend(10) { fixture in
            let alice = try await fixture.credentials()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = MutationQueueTests.App(fixture.backend, directory: directory, credentials: alice)
            let kit = CatalogFeatureKit(sharing: app.rest.configuration, queue: app.queue)
            let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()))
            try container.install([kit])
            let favorites = try container.resolver(for: "app").resolve(CatalogFavorites.self)
            #expect(container.mutationPolicy(forMutation: CatalogFavorites.addMutation) == .queueable)

            #expect(try await fixture.send(.put, "/admin/faults", json: MutationQueueTests.dropFavorites).status == 204)
            try await favorites.setFavorite("funnel-2", true)
            try await favorites.setFavorite("funnel-5", true)
            try await favorites.setFavorite("funnel-2", false)
            await #expect(throws: CatalogError.invalidSlug("../admin")) { try await favorites.setFavorite("../admin", true) }
            #expect(await app.queue.replay().remaining == 3)
            await #expect(throws: CatalogError.self) { _ = try await favorites.favorites() }

            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            #expect(await app.queue.replay().sent == 3)
            #expect(try await favorites.favorites().value == ["funnel-5"])
            #expect(try fixture.backend.catalog.favoriteChanges(userId: alice.userId).map(\.action) == ["add", "add", "remove"])
        }
    }
}

/// A stale screen refreshes by itself when the network returns.
@Suite(.timeLimit(.minutes(10))) struct CatalogReconnectTests {
    @Test func anOfflineListLoadsAgainWhenConnectivitySaysTheNetworkReturned() async throws {
        try await withBackend(30) { fixture in
            let app = try CatalogKitAgainstBackendTests.App(fixture.backend)
            defer { app.caches.remove() }
            let connectivity = TransportConnectivity()
            let model = CatalogListModel(client: app.client, limit: 10)
            await model.refreshesWhenOnline(connectivity)
            await model.load()
            app.clock.advance(by: 3_600)
            #expect(try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/api/","dropConnection":true}]"#).status == 204)
            await model.load()
            connectivity.recordFailure(.offline(reason: "dropped"))
            #expect(await model.current.status?.isOffline == true)
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            connectivity.recordResponse()
            try await waitUntil("the list reloaded by itself") { await model.current.status?.isOffline == false }
            let reloaded = await model.current
            #expect(reloaded.status?.freshness.age == 0 && reloaded.error == nil)
        }
    }
}
