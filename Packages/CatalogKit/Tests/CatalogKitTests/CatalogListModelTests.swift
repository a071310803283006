import APICore
import APICoreREST
import CacheKit
import CatalogKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import CatalogKit

/// The list model: stale-while-revalidate, pull-to-refresh, prefetch, restart and filter changes.
@Suite(.timeLimit(.minutes(10))) struct CatalogListModelTests {
    /// What one state shows, compactly.
    struct Seen: Hashable {
        var phase: CatalogListModel.Phase
        var fromCache: Bool
        var count: Int
    }

    /// The states `action` goes through after the current one, up to the first idle one.
    func states(of model: CatalogListModel, during action: () async -> Void) async -> [Seen] {
        let stream = await model.states()
        await action()
        var seen: [Seen] = []
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        while let state = await iterator.next() {
            seen.append(Seen(phase: state.phase, fromCache: state.isFromCache, count: state.listing.funnels.count))
            if state.phase == .idle { break }
        }
        return seen
    }

    @Test func aCacheMissShowsLoadingThenThePage() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        let seen = await states(of: model) { await model.load() }
        #expect(seen == [Seen(phase: .loading, fromCache: false, count: 0), Seen(phase: .idle, fromCache: false, count: 5)])
        #expect(await model.current.listing.sources == [.network: 1])
    }

    @Test func aRelaunchShowsTheCachedPageAtOnceThenRevalidatesInTheBackground() async throws {
        let fixture = try CatalogFixture()
        await CatalogListModel(client: fixture.client, limit: 5).load()
        // A new screen (or a relaunch: the page is on disk) within 5 minutes.
        let model = CatalogListModel(client: fixture.client, limit: 5)
        let seen = await states(of: model) { await model.load() }
        #expect(
            seen == [
                Seen(phase: .loading, fromCache: false, count: 0), Seen(phase: .refreshing, fromCache: true, count: 5),
                Seen(phase: .idle, fromCache: false, count: 5),
            ])
        #expect(fixture.server.requests.count == 2)
        #expect(fixture.server.requests.last?.headerFields[.ifNoneMatch] == "\"funnels:v1\"")
        #expect(await model.current.listing.sources == [.cache: 1, .revalidated: 1])
    }

    @Test func theScreenReportsItsTimeToInteractiveBySourceItsTimeOnScreenAndTheFunnel() async throws {
        let fixture = try CatalogFixture()
        let screens = ScreenTelemetry(clock: fixture.clock)
        let first = CatalogListModel(client: fixture.client, limit: 5, screens: screens)
        await first.load()
        await first.disappeared()
        // The second visit is filled from the cache first (then revalidated: still one first paint).
        let second = CatalogListModel(client: fixture.client, limit: 5, screens: screens)
        await second.load()
        #expect(screens.timeToInteractive(from: .network)?.count == 1)
        #expect(screens.timeToInteractive(from: .cache)?.count == 1)
        #expect(screens.timeOnScreen()?.count == 1)
        #expect(screens.funnel() == [CatalogListModel.screen: 2])
    }

    @Test func theBackgroundRefreshDeliversAChangedCatalog() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        fixture.server.setFunnels([CatalogFunnel(id: "new", slug: "aaa", title: "A New Funnel")] + FakeCatalogTransport.funnels(12))
        let seen = await states(of: model) { await model.load() }
        #expect(seen.first == Seen(phase: .refreshing, fromCache: false, count: 5))
        #expect(seen.dropFirst().first?.fromCache == true)
        #expect(await model.current.listing.funnels.first?.slug == "aaa")
    }

    @Test func pullToRefreshAlwaysReachesTheServer() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        await model.refresh()
        await model.refresh()
        #expect(fixture.server.requests.count == 3)
        #expect(fixture.server.requests.dropFirst().allSatisfy { $0.headerFields[.ifNoneMatch] == nil })
        let state = await model.current
        #expect(state.listing.sources == [.network: 1] && state.phase == .idle)
    }

    @Test func scrollingPastEightyPercentFetchesTheNextPage() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        await model.scrolled(to: 0.5)
        #expect(fixture.server.requests.count == 1)
        await model.scrolled(to: 0.85)
        await model.scrolled(to: 0.9)
        await model.scrolled(to: 0.95)
        #expect(await model.current.listing.funnels.map(\.slug) == FakeCatalogTransport.funnels(12).map(\.slug))
        // Three pages, then nothing more to fetch.
        #expect(fixture.server.requestedCursors == [nil, "funnel-5", "funnel-10"])
    }

    @Test func aRefusedCursorRestartsFromTheFirstPage() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        fixture.server.setFunnels(FakeCatalogTransport.funnels(12).filter { $0.slug != "funnel-5" })
        await model.loadMore()
        let state = await model.current
        #expect(state.error == nil && state.listing.restarts == 1)
        #expect(state.listing.funnels.map(\.slug) == ["funnel-1", "funnel-2", "funnel-3", "funnel-4", "funnel-6"])
        #expect(fixture.server.requestedCursors == [nil, "funnel-5", nil])
        // A second refusal is reported, not looped on.
        fixture.server.refuse(cursor: "*")
        await model.loadMore()
        guard case .invalidCursor = await model.current.error else {
            Issue.record("expected invalidCursor, got \(String(describing: await model.current.error))")
            return
        }
    }

    @Test func aFilterChangeClearsTheCatalogCacheAndLoadsTheNewListing() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        await model.setFilter(CatalogFilter(activeOnly: true, tier: "premium"))
        await model.setFilter(CatalogFilter(activeOnly: true, tier: "premium"))
        #expect(fixture.server.requests.map { $0.url.query ?? "" } == ["limit=5", "limit=5&active=true&tier=premium"])
        #expect(await model.current.filter == CatalogFilter(activeOnly: true, tier: "premium"))
        // The unfiltered page cached before the change is gone.
        #expect(try await fixture.client.page(limit: 5).source == .network)
    }

    @Test func aFailedRefreshKeepsWhatIsShownAndSaysWhy() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 5)
        await model.load()
        fixture.server.fail(with: .offline(reason: "airplane mode"))
        await model.refresh()
        let state = await model.current
        #expect(state.error == .api(.transport(.offline(reason: "airplane mode"))))
        #expect(state.listing.funnels.count == 5 && state.phase == .idle)
        fixture.server.fail(with: nil)
        await model.refresh()
        #expect(await model.current.error == nil)
    }

    @Test func anInvalidLimitIsReportedWithoutARequest() async throws {
        let fixture = try CatalogFixture()
        let model = CatalogListModel(client: fixture.client, limit: 0)
        await model.load()
        #expect(await model.current.error == .invalidLimit(0))
        #expect(fixture.server.requests.isEmpty)
    }
}
