import APICore
import APICoreREST
import CacheKitTesting
import Foundation
import Testing

@testable import CatalogKit

/// The hand readers of a catalog page (`CatalogPage.decodeEnvelope` from bytes, `CatalogPage(json:)` for the first
/// screen's snapshot) read every body as `DataEnvelope.decode` does: the same page, or the same error.
@Suite(.timeLimit(.minutes(10))) struct CatalogPageJSONTests {
    /// A page as the backend sends it: every member of a funnel, two pillars, uncategorized funnels, a cursor.
    static let backendPage = """
        {"success": true, "data": {
          "pagination": {"hasMore": true, "limit": 50, "nextCursor": "eyJzbHVnIjoiZnVubmVsLTE0MSJ9"},
          "pillars": [
            {"pillar": {"id": "1", "title": "Stress & Resilience"}, "funnels": [
              {"description": "How is your anxiety? A short assessment.", "id": "f103", "isActive": true,
               "slug": "funnel-103", "tier": "free", "title": "Anxiety Assessment 2", "updatedAt": "2026-01-13T16:06:29Z",
               "version": 1},
              {"id": "f2", "slug": "funnel-2", "title": "Caf\\u00e9 \\"quoted\\" \\ud83d\\ude00", "isActive": false,
               "tier": "premium", "version": -3}
            ]},
            {"pillar": {"id": "2", "title": "Sleep"}, "funnels": []}
          ],
          "uncategorized_funnels": [{"id": "u1", "slug": "loose", "title": "Loose", "description": null}]
        }}
        """

    /// What `DataEnvelope.decode` makes of a body: the page or its error.
    static func reference(_ body: String) -> Result<CatalogPage, APIError> {
        Result { () throws(APIError) -> CatalogPage in try DataEnvelope.decode(Data(body.utf8)) }
    }

    /// What the catalog's own decoding makes of it.
    static func handRead(_ body: String) -> Result<CatalogPage, APIError> {
        Result { () throws(APIError) -> CatalogPage in try CatalogPage.decodeEnvelope(Data(body.utf8)) }
    }

    /// The page read straight from its bytes (the network's and the cache's bodies), or `nil` when that reader leaves
    /// it to `JSONDecoder`.
    static func readFromBytes(_ body: String) -> CatalogPage? {
        try? JSONReader.read(Data(body.utf8), CatalogPage.readEnvelope)
    }

    /// The page read from its parsed value (the first screen's snapshot), or `nil` when that reader leaves it.
    static func readFromValue(_ body: String) -> CatalogPage? {
        (try? JSONValue.parse(Data(body.utf8), refusingDuplicateKeys: true)).flatMap(CatalogPage.envelope)
    }

    @Test func aPageAsTheBackendSendsItIsReadByHandWhole() throws {
        let page = try #require(Self.readFromBytes(Self.backendPage), "the reader of bytes left the backend's page to JSONDecoder")
        #expect(Self.readFromValue(Self.backendPage) == page, "the reader of values read it otherwise")
        #expect(page == (try Self.reference(Self.backendPage).get()))
        #expect(page.pillars.count == 2 && page.uncategorizedFunnels.map(\.slug) == ["loose"])
        #expect(page.pillars[0].funnels[1].title == "Café \"quoted\" 😀" && page.pillars[0].funnels[1].version == -3)
        #expect(page.nextCursor == "eyJzbHVnIjoiZnVubmVsLTE0MSJ9")
    }

    @Test(arguments: [
        // Optional members absent or null, and the page's own optional parts.
        #"{"success": true, "data": {"pillars": []}}"#,
        #"{"success": false, "data": {"pillars": [], "uncategorized_funnels": null, "pagination": null}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20, "hasMore": false}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20, "hasMore": false, "nextCursor": null}}}"#,
        // Numbers the strict parser keeps as a Double, or cannot keep at all.
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20.0, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 2e1, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20.5, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 9223372036854775808, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": -0, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 1e400, "hasMore": true}}}"#,
        // Members of the wrong type, required and optional.
        #"{"success": "true", "data": {"pillars": []}}"#,
        #"{"success": null, "data": {"pillars": []}}"#,
        #"{"data": {"pillars": []}}"#,
        #"{"success": true, "data": null}"#,
        #"{"success": true, "data": {"pillars": null}}"#,
        #"{"success": true, "data": {"pillars": {}}}"#,
        #"{"success": true, "data": {"pillars": [], "uncategorized_funnels": {}}}"#,
        #"{"success": true, "data": {"pillars": [], "uncategorized_funnels": [null]}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20, "hasMore": 1}}}"#,
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 20, "hasMore": true, "nextCursor": 5}}}"#,
        #"{"success": true, "data": {"pillars": [{"pillar": null, "funnels": []}]}}"#,
        #"{"success": true, "data": {"pillars": [{"pillar": {"id": 1, "title": "x"}, "funnels": []}]}}"#,
        #"{"success": true, "data": {"pillars": [{"pillar": {"id": "1", "title": "x"}}]}}"#,
        // The same member twice, and members nobody reads.
        #"{"success": true, "data": {"pillars": [], "pagination": {"limit": 1, "limit": 2, "hasMore": true}}}"#,
        #"{"success": true, "data": {"pillars": [], "extra": [1, {"a": null}]}, "meta": "x"}"#,
        // Not JSON, or not an object.
        #"{"success": true"#,
        #"[]"#,
        "",
    ]) func everyBodyReadsAsJSONDecoderReadsIt(_ body: String) {
        #expect(Self.handRead(body) == Self.reference(body), "\(body)")
        // What both hand readers take, they read alike (the reader of values also leaves a body with an unknown key
        // twice, which the reader of bytes takes: both end with JSONDecoder's page).
        if let fromBytes = Self.readFromBytes(body), let fromValue = Self.readFromValue(body) { #expect(fromBytes == fromValue, "\(body)") }
    }

    /// A funnel's members, each absent, `null`, of its type or of another, in random pages: 600 pages from a seed.
    @Test func randomFunnelsReadAsJSONDecoderReadsThem() {
        let members: [(name: String, good: [String], bad: [String])] = [
            ("id", [#""f1""#], ["1", "null"]),
            ("slug", [#""s""#], ["true"]),
            ("title", [#""T""#, #""\u00e9""#], ["[]"]),
            ("description", [#""d""#, "null"], ["1", "{}"]),
            ("isActive", ["true", "false", "null"], ["1", #""true""#]),
            ("tier", [#""free""#, "null"], ["0"]),
            ("version", ["3", "-1", "0", "null"], ["1.5", "1.0", #""3""#, "1e2", "99999999999999999999"]),
            ("updatedAt", [#""2026-01-13T16:06:29Z""#, "null"], ["1"]),
        ]
        var random = SeededRandom(seed: 63)
        var handTaken = 0
        for _ in 0..<600 {
            let funnels = (0..<random.next(in: 1...3)).map { _ in
                let fields = members.compactMap { member -> String? in
                    switch random.next(in: 0...9) {
                    case 0: nil
                    case 1: "\"\(member.name)\": \(member.bad[random.next(in: 0...(member.bad.count - 1))])"
                    default: "\"\(member.name)\": \(member.good[random.next(in: 0...(member.good.count - 1))])"
                    }
                }
                return "{" + fields.joined(separator: ", ") + "}"
            }
            let body =
                #"{"success": true, "data": {"pillars": [{"pillar": {"id": "1", "title": "P"}, "funnels": ["#
                + funnels.joined(separator: ", ") + "]}]}}"
            #expect(Self.handRead(body) == Self.reference(body), "\(body)")
            let fromBytes = Self.readFromBytes(body)
            #expect(fromBytes == Self.readFromValue(body), "\(body)")  // no key twice in these pages
            if fromBytes != nil { handTaken += 1 }
        }
        // Both ways were exercised: pages the hand reader takes, and pages it leaves to JSONDecoder.
        #expect(handTaken > 20 && handTaken < 580, "the hand reader took \(handTaken) of 600 pages")
    }
}
