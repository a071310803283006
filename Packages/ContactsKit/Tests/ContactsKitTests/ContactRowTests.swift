import CacheKitTesting
import Foundation
import Testing

@testable import ContactsKit

/// A row built without `Codable` (what a full sync writes ten thousand times) holds what `Codable` would.
@Suite(.timeLimit(.minutes(1))) struct ContactRowTests {
    /// 2,000 random contacts (quotes, backslashes, control characters, emoji, accents; with and without a
    /// photo; unknown classes): the body reads back as the `Codable` body does, and the date is the string
    /// JSONEncoder's `.iso8601` writes, before 1970 and with fractions of a second too.
    @Test func theBodyReadsBackAsTheCodableBodyDoes() throws {
        var random = SeededRandom(seed: 52)
        let pieces = ["Zoë", "\"quoted\"", "back\\slash", "tab\there", "line\nend", "\u{1}", "🙂", "Ana", "/path", " ", "株式会社"]
        func text() -> String { (0..<Int.random(in: 0..<4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined() }
        let classes: [ProfileClass] = [.person, .business, .family, .unknown("robot")]
        for index in 0..<2_000 {
            let contact = Contact(
                id: "c\(index)\(text())", displayName: text(), phones: (0..<Int.random(in: 0..<3, using: &random)).map { _ in text() },
                emails: [text()], photoPath: Bool.random(using: &random) ? "/photos/\(text())" : nil, circles: [text(), text()],
                profileClass: classes[index % classes.count], enrichmentBadges: index % 3 == 0 ? [] : ["verified", text()],
                updatedAt: Date(timeIntervalSince1970: Double.random(in: -5e9...5e9, using: &random)))
            let codable = try ContactsStore.decoder.decode(Contact.self, from: ContactsStore.encoder.encode(contact))
            let row = ContactRow(contact, seen: true)
            #expect(try row.contact() == codable, "\(contact)")
            let encodedDate = try JSONDecoder().decode([String].self, from: ContactsStore.encoder.encode([contact.updatedAt]))
            #expect([ContactRow.timestamp(contact.updatedAt)] == encodedDate)
        }
    }

    /// The sort key of an ASCII name is Foundation's folding of it, byte for byte.
    @Test func anAsciiSortKeyIsFoundationsFolding() {
        var random = SeededRandom(seed: 53)
        for _ in 0..<2_000 {
            let name = String(decoding: (0..<Int.random(in: 0..<20, using: &random)).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) }, as: UTF8.self)
            #expect(ContactRow.sortKey(name) == name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil), "\(name)")
        }
        #expect(ContactRow.sortKey("Zoë Ångström") == "zoe angstrom")
    }
}
