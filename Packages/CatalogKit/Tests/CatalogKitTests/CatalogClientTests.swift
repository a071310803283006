import APICore
import APICoreREST
import CacheKit
import CacheKitTesting
import CatalogKitTesting
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import CatalogKit

/// The use cases over an in-memory catalog server: limits, paging, restarts, timeouts and policies.
@Suite(.timeLimit(.minutes(10))) struct CatalogClientTests {
    @Test(arguments: [0, -1, 101, Int.max]) func aLimitOutOfRangeFailsBeforeAnyRequest(_ limit: Int) async throws {
        let fixture = try CatalogFixture()
        await #expect(throws: CatalogError.invalidLimit(limit)) { try await fixture.client.page(limit: limit) }
        await #expect(throws: CatalogError.invalidLimit(limit)) { try await fixture.client.allPages(limit: limit) }
        #expect(fixture.server.requests.isEmpty)
    }

    @Test(arguments: [1, 5, 12, 100]) func allPagesJoinTheWholeCatalog(_ limit: Int) async throws {
        let fixture = try CatalogFixture()
        let listing = try await fixture.client.allPages(limit: limit)
        #expect(listing.funnels.map(\.slug) == FakeCatalogTransport.funnels(12).map(\.slug))
        #expect(listing.pageCount == (12 + limit - 1) / limit && listing.restarts == 0)
        #expect(fixture.server.requests.count == listing.pageCount)
    }

    @Test func theCursorOfADeletedFunnelClearsTheListingAndRestartsOnce() async throws {
        let fixture = try CatalogFixture()
        // The user saw page 1 (cached, fresh); the funnel it ends on is then deleted on the server.
        _ = try await fixture.client.page(limit: 5)
        fixture.server.setFunnels(FakeCatalogTransport.funnels(12).filter { $0.slug != "funnel-5" })
        let listing = try await fixture.client.allPages(limit: 5)
        #expect(listing.restarts == 1)
        #expect(listing.funnels.map(\.slug) == FakeCatalogTransport.funnels(12).map(\.slug).filter { $0 != "funnel-5" })
        // Page 1 came from the cache, its cursor was refused, then the walk restarted from the server:
        // the cleared listing could not answer page 1 again.
        #expect(fixture.server.requestedCursors == [nil, "funnel-5", nil, "funnel-6", "funnel-11"])
        #expect(listing.sources == [.network: 3])
    }

    @Test func aCursorRefusedTwiceIsReported() async throws {
        let fixture = try CatalogFixture()
        fixture.server.refuse(cursor: "*")
        await #expect(
            throws: CatalogError.invalidCursor(
                message: "Pagination cursor is invalid or expired. Please restart from the first page.")
        ) {
            try await fixture.client.allPages(limit: 5)
        }
        // The restart did not trust the cached first page: the listing was cleared, so page 1 was asked again.
        #expect(fixture.server.requestedCursors == [nil, "funnel-5", nil, "funnel-5"])
    }

    @Test func aSecondLoadWithinFiveMinutesMakesNoRequestThenRevalidates() async throws {
        let fixture = try CatalogFixture()
        let first = try await fixture.client.allPages(limit: 5)
        #expect(first.sources == [.network: 3])
        fixture.clock.advance(by: 299)
        let second = try await fixture.client.allPages(limit: 5)
        #expect(second.sources == [.cache: 3] && second.funnels == first.funnels)
        #expect(fixture.server.requests.count == 3)
        fixture.clock.advance(by: 2)
        let third = try await fixture.client.allPages(limit: 5)
        #expect(third.sources == [.revalidated: 3] && third.funnels == first.funnels)
        #expect(fixture.server.requests.suffix(3).allSatisfy { $0.headerFields[.ifNoneMatch] == "\"funnels:v1\"" })
        let http = try await fixture.client.cacheParticipant.statistics().first
        #expect(http?.counts.revalidations == 3 && http?.counts.hits == 3)
    }

    @Test func pullToRefreshAlwaysReachesTheServer() async throws {
        let fixture = try CatalogFixture()
        _ = try await fixture.client.page(limit: 5)
        let refreshed = try await fixture.client.page(limit: 5, policy: .fetchIgnoringCacheData)
        #expect(refreshed.source == .network && fixture.server.requests.count == 2)
        #expect(fixture.server.requests.last?.headerFields[.ifNoneMatch] == nil)
    }

    @Test func theSettingsFileOverridesTheCatalogTimeout() async throws {
        let fixture = try CatalogFixture(settings: TimeoutSettings(features: [CatalogFeature.catalog: .custom(seconds: 10)]))
        _ = try await fixture.client.page(limit: 5)
        // The positive control: within the setting's 10 s (not the kit's 300) the page is a cache hit…
        fixture.clock.advance(by: 9)
        #expect(try await fixture.client.page(limit: 5).source == .cache)
        // …and past them it is revalidated.
        fixture.clock.advance(by: 2)
        #expect(try await fixture.client.page(limit: 5).source == .revalidated)
    }

    @Test func filtersAreSentAndCachedApart() async throws {
        let fixture = try CatalogFixture()
        _ = try await fixture.client.page(limit: 5)
        _ = try await fixture.client.page(limit: 5, filter: CatalogFilter(activeOnly: true, tier: "premium"))
        #expect(fixture.server.requests.count == 2)
        #expect(fixture.server.requests.last?.url.query == "limit=5&active=true&tier=premium")
        await fixture.client.clearListing(limit: 5, filter: CatalogFilter(activeOnly: true, tier: "premium"))
        #expect(try await fixture.client.page(limit: 5).source == .cache)
        #expect(try await fixture.client.page(limit: 5, filter: CatalogFilter(activeOnly: true, tier: "premium")).source == .network)
    }

    @Test(arguments: ["", "../admin", "a/b", "a b", "é", ".", ".."]) func aMalformedSlugFailsBeforeAnyRequest(_ slug: String) async throws {
        let fixture = try CatalogFixture()
        await #expect(throws: CatalogError.invalidSlug(slug)) { try await fixture.client.funnel(slug: slug) }
        await #expect(throws: CatalogError.invalidSlug(slug)) { try await fixture.client.definition(slug: slug) }
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func anUnreachableServerIsATypedError() async throws {
        let fixture = try CatalogFixture()
        fixture.server.fail(with: .offline(reason: "no route"))
        await #expect(throws: CatalogError.api(.transport(.offline(reason: "no route")))) {
            try await fixture.client.page()
        }
    }
}
