import APICore
import CacheKit
import Foundation
import GRDB

/// A contact as a row: its JSON, and the folded name it sorts by.
///
/// A full sync writes ten thousand of these, so a row is built and written without `Codable`: the body is
/// the JSON `ContactsStore.encoder` would write (the same keys, the date to the second in UTC), and the
/// row goes in through one cached upsert statement. `ContactRowTests` holds both to their `Codable` forms.
struct ContactRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "contact"
    var id: String
    var sortKey: String
    var body: Data
    var seen: Bool

    init(_ contact: Contact, seen: Bool) {
        id = contact.id
        sortKey = Self.sortKey(contact.displayName)
        body = Self.body(of: contact)
        self.seen = seen
    }

    func contact() throws -> Contact {
        try ContactsStore.decoder.decode(Contact.self, from: body)
    }

    /// Inserts the row, or replaces the one with its id.
    func write(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO contact (id, sortKey, body, seen) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET sortKey = excluded.sortKey, body = excluded.body, seen = excluded.seen
                """)
        try statement.execute(arguments: [id, sortKey, body, seen])
    }

    /// The name folded to lowercase without diacritics: ASCII byte by byte, anything else through Foundation.
    static func sortKey(_ name: String) -> String {
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else {
            return name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        }
        return String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The contact's stored JSON.
    static func body(of contact: Contact) -> Data {
        var object: [String: JSONValue] = [
            "id": .string(contact.id),
            "displayName": .string(contact.displayName),
            "phones": .array(contact.phones.map(JSONValue.string)),
            "emails": .array(contact.emails.map(JSONValue.string)),
            "circles": .array(contact.circles.map(JSONValue.string)),
            "profileClass": .string(contact.profileClass.rawValue),
            "enrichmentBadges": .array(contact.enrichmentBadges.map(JSONValue.string)),
            "updatedAt": .string(timestamp(contact.updatedAt)),
        ]
        if let photoPath = contact.photoPath { object["photoPath"] = .string(photoPath) }
        return JSONValue.object(object).serialized()
    }

    /// `date` in ISO 8601, UTC, to the second (`2026-11-26T14:55:00Z`), as JSONEncoder's `.iso8601` writes
    /// it; years outside 1 to 9999 through Foundation.
    static func timestamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (days, time) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        // Days since 1970 to a civil date (the proleptic Gregorian calendar), after Howard Hinnant's algorithm.
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1...9_999).contains(year) else { return date.formatted(.iso8601) }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let paddedYear = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int) -> Int {
        self - floorDivided(by: divisor) * divisor
    }
}
