import APICore
import APICoreREST
import CacheKitTesting
import Foundation
import Testing

@testable import CatalogKit

/// The contract's JSON, decoded exactly, and the catalog's order.
@Suite(.timeLimit(.minutes(10))) struct CatalogModelsTests {
    /// The catalog contract's first page (REQ CAT-1).
    static let seedFirstPage = """
        {
          "success": true,
          "data": {
            "pillars": [
              {
                "pillar": { "id": "1", "title": "Stress & Resilience" },
                "funnels": [
                  { "id": "a1", "slug": "burnout", "title": "Burnout Assessment" },
                  { "id": "a2", "slug": "stress", "title": "Stress Assessment" }
                ]
              }
            ],
            "uncategorized_funnels": [],
            "pagination": {
              "limit": 20,
              "hasMore": true,
              "nextCursor": "eyJ0aXRsZSI6IlN0cmVzcyBBc3Nlc3NtZW50Iiwic2x1ZyI6InN0cmVzcyJ9"
            }
          }
        }
        """

    @Test func theSeedsFirstPageDecodes() throws {
        let page: CatalogPage = try DataEnvelope.decode(Data(Self.seedFirstPage.utf8))
        #expect(page.pillars.map(\.pillar) == [CatalogPillar(id: "1", title: "Stress & Resilience")])
        #expect(page.funnels.map(\.slug) == ["burnout", "stress"])
        #expect(page.funnels.first?.description == nil && page.funnels.first?.isActive == nil)
        #expect(
            page.pagination
                == CatalogPagination(
                    limit: 20, hasMore: true,
                    nextCursor: "eyJ0aXRsZSI6IlN0cmVzcyBBc3Nlc3NtZW50Iiwic2x1ZyI6InN0cmVzcyJ9"))
        #expect(page.nextCursor == page.pagination?.nextCursor)
    }

    @Test func aLastPageWithANullCursorAndNoOptionalArraysDecodes() throws {
        let last: CatalogPage = try DataEnvelope.decode(
            Data(
                """
                {"success": true, "data": {"pillars": [], "pagination": {"limit": 20, "hasMore": false, "nextCursor": null}}}
                """.utf8))
        #expect(last.uncategorizedFunnels.isEmpty && !last.hasMore && last.nextCursor == nil)
        let bare: CatalogPage = try DataEnvelope.decode(Data(#"{"success": true, "data": {"pillars": []}}"#.utf8))
        #expect(bare.pagination == nil && !bare.hasMore)
    }

    @Test func everyFieldTheBackendSendsDecodes() throws {
        let funnel: CatalogFunnel = try DataEnvelope.decode(
            Data(
                """
                {"success": true, "data": {"id": "f1", "slug": "funnel-1", "title": "Burnout Assessment", "description": "A short one.",
                 "isActive": false, "tier": "premium", "version": 3, "updatedAt": "2026-01-13T14:24:29Z"}}
                """.utf8))
        #expect(
            funnel
                == CatalogFunnel(
                    id: "f1", slug: "funnel-1", title: "Burnout Assessment", description: "A short one.",
                    isActive: false, tier: "premium", version: 3, updatedAt: "2026-01-13T14:24:29Z"))
    }

    @Test(arguments: [
        (#"{"success": true, "data": {"pillars": [{"pillar": {"id": "1"}, "funnels": []}]}}"#, "data.pillars[0].pillar.title"),
        (#"{"success": true, "data": {"pillars": [], "pagination": {"limit": "20", "hasMore": true}}}"#, "data.pagination.limit"),
        (
            #"{"success": true, "data": {"pillars": [{"pillar": {"id": "1", "title": "x"}, "funnels": [{"id": "a"}]}]}}"#,
            "data.pillars[0].funnels[0].slug"
        ),
        (#"{"success": true"#, ""),
    ]) func malformedBodiesNameWhereTheyBreak(_ body: String, _ path: String) {
        let result = Result { () throws(APIError) -> CatalogPage in try DataEnvelope.decode(Data(body.utf8)) }
        guard case .failure(.decoding(let actual, let reason)) = result else {
            Issue.record("expected a decoding error, got \(result)")
            return
        }
        #expect(actual == path && !reason.isEmpty)
    }

    @Test func pagesListTheirFunnelsInCatalogOrderAcrossPillars() {
        let page = CatalogPage(
            pillars: [
                PillarWithFunnels(
                    pillar: CatalogPillar(id: "p1", title: "One"),
                    funnels: [
                        CatalogFunnel(id: "1", slug: "b", title: "stress"), CatalogFunnel(id: "2", slug: "z", title: "Anxiety"),
                    ]),
                PillarWithFunnels(
                    pillar: CatalogPillar(id: "p2", title: "Two"),
                    funnels: [
                        CatalogFunnel(id: "3", slug: "a", title: "Stress"), CatalogFunnel(id: "4", slug: "c", title: "burnout"),
                    ]),
            ], uncategorizedFunnels: [CatalogFunnel(id: "5", slug: "d", title: "Mood")], pagination: nil)
        // Title ignoring case, then slug: "stress"/b and "Stress"/a tie on title, so the slug decides.
        #expect(page.funnels.map(\.slug) == ["z", "c", "d", "a", "b"])
    }

    /// The order compares titles byte by byte with ASCII letters folded, then slugs: the same answer as folding both
    /// titles first and comparing them whole, for 2,000 random pairs (case, prefixes, accents, equal titles).
    @Test func theOrderIsTitleIgnoringASCIICaseThenSlugForRandomPairs() {
        func reference(_ lhs: CatalogFunnel, _ rhs: CatalogFunnel) -> Bool {
            let left = lhs.title.lowercasedASCII
            let right = rhs.title.lowercasedASCII
            if left != right { return Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8)) }
            return Array(lhs.slug.utf8).lexicographicallyPrecedes(Array(rhs.slug.utf8))
        }
        var random = SeededRandom(seed: 2)
        let pieces = ["a", "A", "b", "Z", "z", "\u{E9}", "\u{C9}", " ", "[", "_", "1"]
        func word() -> String { (0..<random.next(in: 0...3)).map { _ in pieces[random.next(in: 0...(pieces.count - 1))] }.joined() }
        var before = 0
        for _ in 0..<2_000 {
            let lhs = CatalogFunnel(id: "1", slug: word(), title: word())
            let rhs = CatalogFunnel(id: "2", slug: word(), title: word())
            #expect(
                CatalogFunnel.catalogOrder(lhs, rhs) == reference(lhs, rhs), "\(lhs.title)/\(lhs.slug) against \(rhs.title)/\(rhs.slug)")
            if CatalogFunnel.catalogOrder(lhs, rhs) { before += 1 }
        }
        #expect(before > 200 && before < 1_800, "both answers came up: \(before) of 2,000 before")
        // A page's funnels come in the same order.
        for _ in 0..<50 {
            let funnels = (0..<random.next(in: 0...30)).map { CatalogFunnel(id: "\($0)", slug: word(), title: word()) }
            let page = CatalogPage(
                pillars: [PillarWithFunnels(pillar: CatalogPillar(id: "p", title: "P"), funnels: funnels)], pagination: nil)
            #expect(page.funnels == funnels.sorted(by: CatalogFunnel.catalogOrder))
        }
    }
}

extension String {
    /// The string with only the ASCII capitals lowered, as `COLLATE NOCASE` folds them.
    fileprivate var lowercasedASCII: String {
        String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
