import APICore
import CacheKit
import Foundation
import GRDB

/// A contact as a row: its JSON, and the folded name it sorts by.
///
/// A full sync writes ten thousand of these, so a row is built and written without `Codable`: the body is
/// the JSON `ContactsStore.encoder` would write (the same keys, the date as ``WireDate`` writes it), and the
/// row goes in through one cached upsert statement, its only way in (``write(_:)``). `ContactRowTests` holds
/// both to their `Codable` forms.
struct ContactRow: Decodable, FetchableRecord, TableRecord {
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
        try Self.contact(from: body)
    }

    /// The contact a stored body holds, read by hand from the strict parser's value: a search's page reads 20
    /// bodies and opening a user's file reads every one, and `JSONDecoder` took most of that time. A body the hand
    /// reader does not take whole (a member missing, `null` or of the wrong type) goes to `JSONDecoder`, which
    /// decides, so both read every body alike (`ContactRowTests`).
    static func contact(from body: Data) throws -> Contact {
        if let value = try? JSONValue.parse(body, refusingDuplicateKeys: true), let json = try? ContactJSON(value),
            let contact = json.storedContact
        {
            return contact
        }
        return try ContactsStore.decoder.decode(Contact.self, from: body)
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

    /// The name folded to lowercase without diacritics, width kept: the key every row has had since the file's
    /// first version.
    static func sortKey(_ name: String) -> String {
        SearchDocument.sortKey(folding: name)
    }

    /// The contact's stored JSON.
    static func body(of contact: Contact) -> Data {
        var writer = JSONObjectWriter()
        writer.write("id", contact.id)
        writer.write("displayName", contact.displayName)
        writer.write("phones", contact.phones)
        writer.write("emails", contact.emails)
        if let photoPath = contact.photoPath { writer.write("photoPath", photoPath) }
        writer.write("circles", contact.circles)
        writer.write("profileClass", contact.profileClass.rawValue)
        writer.write("enrichmentBadges", contact.enrichmentBadges)
        writer.write("updatedAt", WireDate.format(contact.updatedAt))
        return writer.finished()
    }
}
