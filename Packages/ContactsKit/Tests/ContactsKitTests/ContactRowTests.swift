import APICore
import CacheKitTesting
import Foundation
import Testing

@testable import ContactsKit

/// A row built without `Codable` (what a full sync writes ten thousand times) holds what `Codable` would.
@Suite(.timeLimit(.minutes(10))) struct ContactRowTests {
    /// 2,000 random contacts (quotes, backslashes, control characters, emoji, accents; with and without a
    /// photo; unknown classes): the body reads back as the `Codable` body does, and the date is the string
    /// JSONEncoder's `.iso8601` writes, before 1970 and with fractions of a second too.
    @Test func theBodyReadsBackAsTheCodableBodyDoes() throws {
        var random = SeededRandom(seed: 52)
        let pieces = ["Zoë", "\"quoted\"", "back\\slash", "tab\there", "line\nend", "\u{1}", "🙂", "Ana", "/path", " ", "株式会社"]
        func text() -> String {
            (0..<Int.random(in: 0..<4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
        }
        let classes: [ProfileClass] = [.person, .business, .family, .unknown("robot")]
        for index in 0..<2_000 {
            let contact = Contact(
                id: "c\(index)\(text())", displayName: text(), phones: (0..<Int.random(in: 0..<3, using: &random)).map { _ in text() },
                emails: [text()], photoPath: Bool.random(using: &random) ? "/photos/\(text())" : nil, circles: [text(), text()],
                profileClass: classes[index % classes.count], enrichmentBadges: index % 3 == 0 ? [] : ["verified", text()],
                updatedAt: Date(timeIntervalSince1970: Double.random(in: -1.3e10...2.6e11, using: &random)))
            let codable = try ContactsStore.decoder.decode(Contact.self, from: ContactsStore.encoder.encode(contact))
            let row = ContactRow(contact, seen: true)
            #expect(try row.contact() == codable, "\(contact)")
            let written = try JSONDecoder().decode([String].self, from: foundation.encode([contact.updatedAt]))
            #expect([WireDate.format(contact.updatedAt)] == written)
            #expect(WireDate.parse(written[0]) == (try? Date(written[0], strategy: .iso8601)), "\(written[0])")
        }
    }

    private let foundation = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Dates the hand-written reader does not take go to Foundation, which decides.
    @Test func aDateOutOfRangeOrWithAFractionReadsAsFoundationReadsIt() {
        for text in [
            "2026-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "2026-13-01T00:00:00Z", "2026-11-26T24:00:00Z", "2026-11-26T14:55:00.250Z",
            "2026-11-26T14:55:00+01:00", "0000-01-01T00:00:00Z", "2026-11-26 14:55:00Z", "2026-1x-26T14:55:00Z", "yesterday", "",
            "1500-03-01T00:00:00Z", "1599-12-31T23:59:59Z", "1600-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        ] {
            #expect(WireDate.parse(text) == (try? Date(text, strategy: .iso8601)), "\(text)")
        }
        #expect(WireDate.parse("2026-11-26T14:55:00.250Z")?.timeIntervalSince1970 == 1_795_704_900.25)
    }

    /// A stored body is read by hand, and one the hand reader does not take whole goes to `JSONDecoder`: every
    /// body reads as `JSONDecoder` reads it, a member missing, `null` or of the wrong type included (no contact).
    @Test func aStoredBodyReadsAsJSONDecoderReadsIt() throws {
        let members = [
            #""id":"c1""#, #""displayName":"Zoë""#, #""phones":["1"]"#, #""emails":[]"#, #""circles":["k"]"#, #""profileClass":"robot""#,
            #""enrichmentBadges":[]"#, #""updatedAt":"2026-11-26T14:55:00Z""#,
        ]
        let whole = members.joined(separator: ",")
        let bodies = [
            "{\(whole)}", "{\(whole),\"photoPath\":\"/p\"}", "{\(whole),\"photoPath\":null}", "{\(whole),\"extra\":{\"a\":[1]}}",
            "{\(whole),\"deleted\":\"yes\"}", "{\(whole),\"photoPath\":7}",
            "{\(whole.replacingOccurrences(of: "14:55:00Z", with: "14:55:00.250Z"))}",
            "{\(whole.replacingOccurrences(of: #""displayName":"Zoë","#, with: ""))}",
            "{\(whole.replacingOccurrences(of: #""phones":["1"]"#, with: #""phones":null"#))}",
            "{\(whole.replacingOccurrences(of: #""phones":["1"]"#, with: #""phones":["1",2]"#))}",
            "{\(whole.replacingOccurrences(of: #","enrichmentBadges":[]"#, with: ""))}",
            "{\(whole.replacingOccurrences(of: "2026-11-26T14:55:00Z", with: "soon"))}",
            "{\(whole.replacingOccurrences(of: #""id":"c1","#, with: ""))}", "{\(whole)", "[]", "",
            // A key twice: JSONDecoder decides which one counts.
            "{\(whole),\"displayName\":\"Other\"}", "{\(whole),\"phones\":7}",
        ]
        for body in bodies {
            let byHand = try? ContactRow.contact(from: Data(body.utf8))
            #expect(byHand == (try? ContactsStore.decoder.decode(Contact.self, from: Data(body.utf8))), "\(body)")
        }
        #expect(try ContactRow.contact(from: Data("{\(whole)}".utf8)).profileClass == .unknown("robot"))
    }

    /// A page read by hand reads as `Decodable` would: `null` is absent, a member of the wrong type makes its
    /// record malformed (skipped, the rest of the page kept), and a body that is not a page is a typed error.
    @Test func aPageIsReadAsDecodableWouldAndABadOneIsATypedError() throws {
        let body = Data(
            #"""
            {"data":[{"id":"c1","displayName":"Zoë","phones":["1"],"emails":null,"updatedAt":"2026-11-26T14:55:00Z","profileClass":"robot"},
            {"id":"c2","displayName":7},{"id":"c3","phones":["1",2]},{"id":"c4","deleted":true},{"id":"c5","deleted":"yes"},
            {"id":"c6","updatedAt":"not a date"},"c7",{"id":8},{"id":"c9"}]}
            """#.utf8)
        let page = try ContactJSON.page(body)
        #expect(page.map { $0?.id } == ["c1", nil, nil, "c4", nil, nil, nil, nil, "c9"])
        let first = try #require(page[0]?.contact)
        #expect(first.displayName == "Zoë" && first.phones == ["1"] && first.emails == [] && first.profileClass == .unknown("robot"))
        #expect(first.updatedAt == Date(timeIntervalSince1970: 1_795_704_900))
        #expect(page[3]?.deleted == true && page[8]?.contact.displayName == "")
        // A number beyond a Double's range, which the strict parser refuses, costs its record only.
        let huge = try ContactJSON.page(Data(#"{"data":[{"id":"c1","x":1e400},{"id":"c2","displayName":"Ana"}]}"#.utf8))
        #expect(huge.map { $0?.id } == [nil, "c2"] && huge[1]?.displayName == "Ana")
        for bad in [#"{"data":[{"id":"c1"}"#, #"{"items":[]}"#, #"{"data":{}}"#, "[]", ""] {
            #expect(throws: APIError.self, "\(bad)") { try ContactJSON.page(Data(bad.utf8)) }
        }
    }

    /// The sort key is Foundation's folding of the name (case and diacritics, as since the file's first version:
    /// rows already stored keep theirs).
    @Test func theSortKeyIsFoundationsFolding() {
        var random = SeededRandom(seed: 53)
        let letters = Array("aZ09 -'.ÅéøßŁżĳǅœ株é\u{301}ａＺ") + (0xC0...0x24F).compactMap(Unicode.Scalar.init).map(Character.init)
        for _ in 0..<2_000 {
            let name = String(
                (0..<Int.random(in: 0..<20, using: &random)).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] })
            #expect(
                ContactRow.sortKey(name)
                    == name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil),
                "\(name)")
        }
        #expect(ContactRow.sortKey("Zoë Ångström") == "zoe angstrom" && ContactRow.sortKey("Ｚ") == "ｚ", "width kept")
    }
}
