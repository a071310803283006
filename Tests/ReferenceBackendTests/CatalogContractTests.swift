import APICore
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import Testing

/// The catalog contract (REQ CAT), checked over real HTTP against the reference backend on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct CatalogContractTests {
    struct Page: Decodable {
        struct Funnel: Decodable, Hashable {
            var id: String
            var slug: String
            var title: String
            var isActive: Bool
        }
        struct Group: Decodable {
            var pillar: Pillar
            var funnels: [Funnel]
        }
        struct Pillar: Decodable {
            var id: String
            var title: String
        }
        struct Pagination: Decodable {
            var limit: Int
            var hasMore: Bool
            var nextCursor: String?
        }
        struct Payload: Decodable {
            var pillars: [Group]
            var uncategorized_funnels: [Funnel]
            var pagination: Pagination
        }
        var success: Bool
        var data: Payload

        var funnels: [Funnel] { data.pillars.flatMap(\.funnels) + data.uncategorized_funnels }
    }

    func pages(_ fixture: BackendFixture, limit: Int, extra: String = "") async throws -> [Page.Funnel] {
        var all: [Page.Funnel] = []
        var cursor: String?
        repeat {
            var path = "/api/funnels/catalog?limit=\(limit)\(extra)"
            if let cursor { path += "&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)" }
            let response = try await fixture.get(path)
            #expect(response.status == 200)
            let page = try JSONDecoder().decode(Page.self, from: response.body)
            #expect(page.funnels.count <= limit)
            // The order as served: within each pillar (and among the uncategorized) the catalog's order.
            for group in page.data.pillars.map(\.funnels) + [page.data.uncategorized_funnels] {
                #expect(Self.isInCatalogOrder(group), "a group served out of order: \(group.map(\.slug))")
            }
            all += page.funnels.sorted(by: Self.precedes)
            cursor = page.data.pagination.nextCursor
            #expect(page.data.pagination.hasMore == (cursor != nil))
        } while cursor != nil
        return all
    }

    /// The catalog's order: title, case-insensitive, then slug.
    static func precedes(_ left: Page.Funnel, _ right: Page.Funnel) -> Bool {
        (left.title.lowercased(), left.slug) < (right.title.lowercased(), right.slug)
    }

    static func isInCatalogOrder(_ funnels: [Page.Funnel]) -> Bool {
        zip(funnels, funnels.dropFirst()).allSatisfy { precedes($0, $1) }
    }

    @Test(arguments: [1, 7, 50, 100]) func everyPageJoinsIntoTheFullOrderedCatalog(_ limit: Int) async throws {
        try await withBackend { fixture in
            let expected = try fixture.backend.catalog.allFunnels().map(\.slug)
            let joined = try await pages(fixture, limit: limit).map(\.slug)
            #expect(joined == expected)
            #expect(Set(joined).count == 300)
        }
    }

    @Test func orderIsTitleCaseInsensitiveThenSlug() async throws {
        try await withBackend { fixture in
            // Over HTTP, as a client sees it: one page holding the whole catalog, each group in order, and
            // pages joined in order.
            let response = try await fixture.get("/api/funnels/catalog?limit=100")
            let page = try JSONDecoder().decode(Page.self, from: response.body)
            let groups = page.data.pillars.map(\.funnels) + [page.data.uncategorized_funnels]
            #expect(groups.filter { $0.count > 1 }.count >= 2, "several groups to check")
            for group in groups { #expect(Self.isInCatalogOrder(group), "\(group.map(\.slug))") }
            let joined = try await pages(fixture, limit: 7)
            #expect(Self.isInCatalogOrder(joined))
            #expect(
                Dictionary(grouping: joined, by: { $0.title.lowercased() }).values.contains { $0.count > 1 },
                "the demo data has titles shared by several funnels, so the slug decides")
        }
    }

    @Test func headersMatchTheSeedsTableAnd304sAnswerMatchingValidators() async throws {
        try await withBackend { fixture in
            let first = try await fixture.get("/api/funnels/catalog?limit=20")
            #expect(first.headerFields[.cacheControl] == "public, max-age=300, must-revalidate")
            let eTag = try #require(first.headerFields[.eTag])
            #expect(eTag.wholeMatch(of: /"funnels:v\d+:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/) != nil, "\(eTag)")
            let lastModified = try #require(first.headerFields[.lastModified])
            #expect(lastModified.wholeMatch(of: /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/) != nil)

            let byTag = try await fixture.get("/api/funnels/catalog?limit=20", [.ifNoneMatch: eTag])
            #expect(byTag.status == 304 && byTag.body.isEmpty && byTag.headerFields[.eTag] == eTag)
            let byDate = try await fixture.get("/api/funnels/catalog?limit=20", [.ifModifiedSince: lastModified])
            #expect(byDate.status == 304)
            let otherTag = try await fixture.get("/api/funnels/catalog?limit=20", [.ifNoneMatch: "\"funnels:v0:old\""])
            #expect(otherTag.status == 200)

            let detail = try await fixture.get("/api/funnels/catalog/funnel-1")
            #expect(detail.status == 200 && detail.headerFields[.eTag]?.hasPrefix("\"funnel:funnel-1:v1:") == true)
            let definition = try await fixture.get("/api/funnels/funnel-1/definition")
            #expect(definition.headerFields[.cacheControl] == "public, max-age=600, must-revalidate")
            #expect(definition.headerFields[.lastModified] == nil)
            let definitionAgain = try await fixture.get(
                "/api/funnels/funnel-1/definition",
                [.ifNoneMatch: try #require(definition.headerFields[.eTag])])
            #expect(definitionAgain.status == 304)
            #expect(try await fixture.get("/api/funnels/catalog/nope").status == 404)
        }
    }

    @Test func aChangedFunnelChangesTheETagAndAnAddedOneAppearsInItsPlace() async throws {
        try await withBackend(40) { fixture in
            let before = try await fixture.get("/api/funnels/catalog?limit=10")
            let eTag = try #require(before.headerFields[.eTag])
            let firstPage = try JSONDecoder().decode(Page.self, from: before.body)
            let cursor = try #require(firstPage.data.pagination.nextCursor)

            // Added between pages, sorting after the first page: it must show up, nothing skipped.
            let added = try await fixture.send(
                .post, "/admin/funnels", json: #"{"slug":"zz-new","title":"Zzz Late Arrival","pillarId":"p1"}"#)
            #expect(added.status == 201)
            let afterAdd = try await fixture.get("/api/funnels/catalog?limit=10", [.ifNoneMatch: eTag])
            #expect(afterAdd.status == 200 && afterAdd.headerFields[.eTag] != eTag)

            var rest: [Page.Funnel] = []
            var next: String? = cursor
            while let current = next {
                let response = try await fixture.get("/api/funnels/catalog?limit=10&cursor=\(current)")
                let page = try JSONDecoder().decode(Page.self, from: response.body)
                rest += page.funnels
                next = page.data.pagination.nextCursor
            }
            let seen = firstPage.funnels.map(\.slug) + rest.map(\.slug)
            #expect(Set(seen) == Set(try fixture.backend.catalog.allFunnels().map(\.slug)))
            #expect(seen.count == 41)

            let renamed = try await fixture.send(.patch, "/admin/funnels/funnel-1", json: #"{"title":"Renamed"}"#)
            #expect(renamed.status == 200)
            #expect(try await fixture.get("/api/funnels/catalog/funnel-1").headerFields[.eTag]?.contains(":v2:") == true)
        }
    }

    @Test func malformedOrStaleCursorsAreInvalidCursor() async throws {
        try await withBackend(30) { fixture in
            for cursor in ["invalid_cursor", "e30=", Data("{\"title\":1}".utf8).base64EncodedString()] {
                let response = try await fixture.get("/api/funnels/catalog?cursor=\(cursor)")
                #expect(response.status == 400)
                let error = try JSONDecoder().decode([String: JSONValue].self, from: response.body)
                #expect(error["success"] == false)
                #expect(error["error"]?["code"] == "INVALID_CURSOR")
                #expect(error["error"]?["details"]?["cursor"] == .string(cursor))
            }
            let page = try JSONDecoder().decode(Page.self, from: try await fixture.get("/api/funnels/catalog?limit=5").body)
            let cursor = try #require(page.data.pagination.nextCursor)
            let last = try #require(page.funnels.sorted { ($0.title.lowercased(), $0.slug) < ($1.title.lowercased(), $1.slug) }.last)
            #expect(try await fixture.send(.delete, "/admin/funnels/\(last.slug)", json: "").status == 204)
            let stale = try await fixture.get("/api/funnels/catalog?limit=5&cursor=\(cursor)")
            #expect(stale.status == 400)
            #expect(String(decoding: stale.body, as: UTF8.self).contains("INVALID_CURSOR"))
        }
    }

    @Test(arguments: ["0", "101", "-1", "ten", "1.5"]) func limitsOutOfBoundsAreRejected(_ limit: String) async throws {
        try await withBackend(10) { fixture in
            let response = try await fixture.get("/api/funnels/catalog?limit=\(limit)")
            #expect(response.status == 400)
            #expect(String(decoding: response.body, as: UTF8.self).contains("INVALID_LIMIT"))
            let fine = try JSONDecoder().decode(Page.self, from: try await fixture.get("/api/funnels/catalog").body)
            #expect(fine.data.pagination.limit == 50 && fine.funnels.count == 10 && !fine.data.pagination.hasMore)
        }
    }

    @Test func activeTrueKeepsOnlyActiveFunnels() async throws {
        try await withBackend(60) { fixture in
            let active = try await pages(fixture, limit: 25, extra: "&active=true")
            #expect(!active.isEmpty && active.allSatisfy(\.isActive))
            #expect(active.map(\.slug) == (try fixture.backend.catalog.allFunnels(activeOnly: true).map(\.slug)))
            #expect(active.count < 60)
        }
    }

    @Test func tierKeepsOnlyThatTier() async throws {
        try await withBackend(60) { fixture in
            let premium = try await pages(fixture, limit: 7, extra: "&tier=premium&active=true").map(\.slug)
            let expected = try fixture.backend.catalog.allFunnels(activeOnly: true, tier: "premium").map(\.slug)
            #expect(!premium.isEmpty && premium == expected)
            #expect(premium.count < (try fixture.backend.catalog.allFunnels(activeOnly: true).count))
        }
    }

    @Test(arguments: ["tier=gold", "active=yes", "active="]) func unknownFiltersAreRejected(_ filter: String) async throws {
        try await withBackend(10) { fixture in
            let response = try await fixture.get("/api/funnels/catalog?\(filter)")
            #expect(response.status == 400)
            #expect(String(decoding: response.body, as: UTF8.self).contains("INVALID_FILTER"))
        }
    }
}
