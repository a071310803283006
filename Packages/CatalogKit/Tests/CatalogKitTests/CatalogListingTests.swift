import APICore
import Testing

@testable import CatalogKit

/// Joining pages, and the prefetch rule.
@Suite(.timeLimit(.minutes(10))) struct CatalogListingTests {
    func page(_ slugs: [String], next: String?) -> CatalogPage {
        CatalogPage(
            pillars: [
                PillarWithFunnels(
                    pillar: CatalogPillar(id: "p", title: "P"),
                    funnels: slugs.map { CatalogFunnel(id: $0, slug: $0, title: $0) })
            ],
            pagination: CatalogPagination(limit: slugs.count, hasMore: next != nil, nextCursor: next))
    }

    @Test func pagesJoinInOrderEachFunnelOnce() {
        var listing = CatalogListing()
        #expect(listing.append(page(["a", "b"], next: "b")) == 2)
        #expect(listing.hasMore && listing.nextCursor == "b")
        // A page fetched after the catalog changed repeats "b" and brings "ab", which sorts earlier.
        #expect(listing.append(page(["ab", "b", "c"], next: nil)) == 2)
        #expect(listing.funnels.map(\.slug) == ["a", "ab", "b", "c"])
        #expect(listing.pillars.map { $0.funnels.map(\.slug) } == [["a", "ab", "b", "c"]])
        #expect(listing.pageCount == 2 && !listing.hasMore)
    }

    @Test func pillarsMergeAcrossPages() {
        var listing = CatalogListing()
        listing.append(
            CatalogPage(
                pillars: [
                    PillarWithFunnels(
                        pillar: CatalogPillar(id: "p2", title: "Two"),
                        funnels: [CatalogFunnel(id: "a", slug: "a", title: "a")])
                ],
                uncategorizedFunnels: [CatalogFunnel(id: "b", slug: "b", title: "b")],
                pagination: CatalogPagination(limit: 2, hasMore: true, nextCursor: "b")))
        listing.append(
            CatalogPage(
                pillars: [
                    PillarWithFunnels(
                        pillar: CatalogPillar(id: "p1", title: "One"), funnels: [CatalogFunnel(id: "d", slug: "d", title: "d")]),
                    PillarWithFunnels(
                        pillar: CatalogPillar(id: "p2", title: "Two"), funnels: [CatalogFunnel(id: "c", slug: "c", title: "c")]),
                ], pagination: CatalogPagination(limit: 2, hasMore: false, nextCursor: nil)))
        #expect(listing.pillars.map(\.pillar.id) == ["p2", "p1"])
        #expect(listing.pillars.map { $0.funnels.map(\.slug) } == [["a", "c"], ["d"]])
        #expect(listing.uncategorizedFunnels.map(\.slug) == ["b"])
    }

    @Test(arguments: [
        (0.81, true, false, true), (0.8, true, false, false), (0.5, true, false, false),
        (0.95, false, false, false), (0.95, true, true, false), (1.0, true, false, true),
    ]) func prefetchPastEightyPercentWithMorePagesAndNoneInFlight(
        _ progress: Double, _ hasMore: Bool, _ isFetching: Bool, _ expected: Bool
    ) {
        #expect(CatalogPrefetch.shouldFetchNextPage(scrollProgress: progress, hasMore: hasMore, isFetching: isFetching) == expected)
    }
}
