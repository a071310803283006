import CacheKit
import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// `JSONValueDecoder` must decode every type exactly as `JSONDecoder` does from the same JSON, and fail
/// with the same kind of error and coding path, since `GraphQLResult.decode` switched from one to the other.
@Suite(.timeLimit(.minutes(10))) struct JSONValueDecoderTests {
    struct Merchant: Codable, Hashable {
        var id: String
        var name: String?
    }

    enum Kind: String, Codable, Hashable { case debit, credit }

    struct Transaction: Codable, Hashable {
        var id: String
        var amount: Double
        var cents: Int
        var small: Int8
        var pending: Bool
        var kind: Kind
        var merchant: Merchant
        var tags: [String]
        var note: String?
        var total: Decimal
        var postedAt: Date
        var receipt: Data
        var extra: [String: Int]
        var nested: [[Int]]
    }

    static let json = #"""
        {"id": "t1", "amount": 12, "cents": 1200, "small": -7, "pending": false, "kind": "credit",
         "merchant": {"id": "m1", "name": null}, "tags": ["a", "b"], "note": null, "total": 12.5,
         "postedAt": 786297600, "receipt": "aGVsbG8=", "extra": {"x": 1, "y": 2}, "nested": [[1], [], [2, 3]]}
        """#

    @Test func decodesLikeJSONDecoder() throws {
        let expected = try JSONDecoder().decode(Transaction.self, from: Data(Self.json.utf8))
        let tree = try JSONValue.parse(Data(Self.json.utf8))
        let decoded = try JSONValueDecoder().decode(Transaction.self, from: tree)
        #expect(decoded == expected)
        #expect(decoded.receipt == Data("hello".utf8))
        #expect(decoded.total == Decimal(string: "12.5"))
    }

    @Test(arguments: [
        (#"{"id": 1}"#, "id", "typeMismatch"),
        (#"{"name": "x"}"#, "", "keyNotFound"),
        (#"{"id": null}"#, "id", "valueNotFound"),
    ]) func failsWithTheKindAndPathJSONDecoderGives(_ text: String, _ path: String, _ kind: String) throws {
        let tree = try JSONValue.parse(Data(text.utf8))
        for attempt in [
            { try JSONDecoder().decode(Merchant.self, from: Data(text.utf8)) },
            { try JSONValueDecoder().decode(Merchant.self, from: tree) },
        ] {
            do {
                _ = try attempt()
                Issue.record("decoded \(text)")
            } catch let error as DecodingError {
                let (found, context): (String, DecodingError.Context) =
                    switch error {
                    case .typeMismatch(_, let context): ("typeMismatch", context)
                    case .keyNotFound(_, let context): ("keyNotFound", context)
                    case .valueNotFound(_, let context): ("valueNotFound", context)
                    case .dataCorrupted(let context): ("dataCorrupted", context)
                    @unknown default: ("unknown", DecodingError.Context(codingPath: [], debugDescription: ""))
                    }
                #expect(found == kind)
                #expect(context.codingPath.map(\.stringValue).joined(separator: ".") == path)
            }
        }
    }

    @Test func anInexactNumberIsNotAnInteger() throws {
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: .double(1.5)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int8.self, from: .int(300)) }
        #expect(try JSONValueDecoder().decode(Int.self, from: .double(3)) == 3)
    }

    @Test func aGraphQLResultReportsTheCodingPathOfAFieldThatDoesNotFit() {
        let result = GraphQLResult(
            data: ["merchants": [["id": "m1"], ["id": 2]]], source: .cache, freshness: .fetched(at: Date(timeIntervalSince1970: 0)))
        struct Page: Decodable { var merchants: [Merchant] }
        #expect(throws: APIError.self) { try result.decode(Page.self) }
        do {
            _ = try result.decode(Page.self)
        } catch {
            guard case .decoding(let path, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "merchants[1].id")
        }
    }

    /// An integer read from a `Double` only below 2^53, where the `Double` holds it exactly: above, it may have been
    /// rounded when parsed, and is refused rather than read otherwise than `JSONDecoder` reads its text.
    @Test func anIntegerFromADoubleIsReadOnlyBelowTwoToTheFiftyThird() throws {
        #expect(try JSONValueDecoder().decode(Int.self, from: .double(0x1p53 - 1)) == 9_007_199_254_740_991)
        #expect(try JSONValueDecoder().decode(Int.self, from: .double(-(0x1p53 - 1))) == -9_007_199_254_740_991)
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: .double(0x1p53)) }
        // A literal above Int.max parses as a Double: refused for a UInt64 too, where most such values are rounded.
        let parsed = try JSONValue.parse(Data("9223372036854775809".utf8))
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(UInt64.self, from: parsed) }
    }
}
