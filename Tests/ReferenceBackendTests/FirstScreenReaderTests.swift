import AccountsKit
import CacheKitTesting
import CatalogKit
import Foundation
import Testing

@testable import MIBApp

/// The first screen's snapshot read by hand (`FirstScreen.decodeSnapshot`) reads every body as `JSONDecoder` reads
/// it: the same first screen, or an error both ways.
@Suite(.timeLimit(.minutes(10))) struct FirstScreenReaderTests {
    /// `body` read both ways: the value, or `nil` for an error.
    static func bothWays(_ body: String) -> (hand: FirstScreen?, reference: FirstScreen?) {
        let data = Data(body.utf8)
        return (try? FirstScreen.decodeSnapshot(data), try? JSONDecoder().decode(FirstScreen.self, from: data))
    }

    static let dashboard =
        #"{"id": "u1", "totalBalance": 150, "accounts": [{"id": "a1", "name": "Checking", "balance": 150, "currency": "EUR"}], "#
        + #""recentTransactions": [{"id": "t1", "accountId": "a1", "amount": -5, "description": "Coffee", "date": "2026-11-28"}]}"#
    static let catalog =
        #"{"pillars": [{"pillar": {"id": "p1", "title": "P"}, "funnels": [{"id": "f1", "slug": "s", "title": "T", "version": 3}]}], "#
        + #""pagination": {"limit": 50, "hasMore": true, "nextCursor": "c"}}"#

    /// What the app saves, read back whole by hand.
    @Test func aSavedFirstScreenReadsBackWhole() throws {
        let body = #"{"catalog": \#(Self.catalog), "dashboard": \#(Self.dashboard)}"#
        let saved = try JSONDecoder().decode(FirstScreen.self, from: Data(body.utf8))
        let read = try FirstScreen.decodeSnapshot(try JSONEncoder().encode(saved))
        #expect(read == saved)
        #expect(read.catalog.funnels.map(\.version) == [3] && read.dashboard.accounts.map(\.balance) == [150])
    }

    /// Bodies the hand reader leaves to `JSONDecoder`, or that neither reads.
    @Test(arguments: [
        #"{"catalog": \#(catalog), "dashboard": \#(dashboard), "catalog": {"pillars": []}}"#,
        #"{"catalog": {"pillars": [], "pagination": {"limit": 50.0, "hasMore": false}}, "dashboard": \#(dashboard)}"#,
        #"{"catalog": {"pillars": [{"pillar": {"id": "p", "title": "P"}, "funnels": [{"id": "f", "slug": "s", "title": "T", "version": 1.0}]}]}, "dashboard": \#(dashboard)}"#,
        #"{"catalog": \#(catalog), "dashboard": {"id": "u1", "totalBalance": 1.5, "accounts": [], "recentTransactions": []}}"#,
        #"{"catalog": \#(catalog), "dashboard": {"id": "u1", "totalBalance": 1, "accounts": []}}"#,
        #"{"catalog": \#(catalog), "dashboard": {"id": "u1", "totalBalance": 9007199254740993.0, "accounts": [], "recentTransactions": []}}"#,
        #"{"catalog": \#(catalog), "dashboard": {"id": "u1", "totalBalance": -9223372036854775809, "accounts": [], "recentTransactions": []}}"#,
        #"{"catalog": \#(catalog), "dashboard": {"id": "u1", "totalBalance": 1e2, "accounts": [], "recentTransactions": []}}"#,
        #"{"catalog": \#(catalog)}"#,
        #"{"dashboard": \#(dashboard)}"#,
        #"{"catalog": null, "dashboard": \#(dashboard)}"#,
        #"{"catalog": \#(catalog), "dashboard": \#(dashboard), "extra": [1, 2]}"#,
        #"[]"#,
        "",
    ]) func everyBodyReadsAsJSONDecoderReadsIt(_ body: String) {
        let read = Self.bothWays(body)
        #expect(read.hand == read.reference, "\(body)")
    }

    /// Random first screens, their members of their type or of another: 300 from a seed.
    @Test func randomFirstScreensReadAsJSONDecoderReadsThem() {
        var random = SeededRandom(seed: 63)
        func pick(_ values: [String]) -> String { values[random.next(in: 0...(values.count - 1))] }
        var read = 0
        for _ in 0..<300 {
            let funnels = (0..<random.next(in: 0...4)).map { index in
                #"{"id": "f\#(index)", "slug": "s\#(index)", "title": \#(pick([#""T""#, #""\u00e9""#])), "#
                    + #""version": \#(pick(["3", "null", "-1", "2.5", "\"3\""])), "isActive": \#(pick(["true", "null", "1"]))}"#
            }
            let pagination = pick(["null", #"{"limit": 50, "hasMore": false}"#, #"{"limit": 50, "hasMore": true, "nextCursor": "c"}"#])
            let balance = pick(["150", "-3", "1.5", "null"])
            let body =
                #"{"catalog": {"pillars": [{"pillar": {"id": "p", "title": "P"}, "funnels": [\#(funnels.joined(separator: ", "))]}], "#
                + #""pagination": \#(pagination)}, "dashboard": {"id": "u", "totalBalance": \#(balance), "accounts": [], "#
                + #""recentTransactions": []}}"#
            let both = Self.bothWays(body)
            #expect(both.hand == both.reference, "\(body)")
            if both.reference != nil { read += 1 }
        }
        // Both kinds were exercised: bodies that read, and bodies that do not.
        #expect(read > 20 && read < 280, "\(read) of 300 read")
    }
}
