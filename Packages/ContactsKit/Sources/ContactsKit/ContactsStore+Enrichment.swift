import Foundation
import GRDB

// Enrichment data kept on the device for offline reading.
extension ContactsStore {
    /// Keeps a contact's enrichment data, with when it was fetched.
    func saveEnrichment(_ enrichment: ContactEnrichment, at date: Date, userId: String) throws {
        try database(for: userId).write { db in
            try Self.save(KeptEnrichment(value: enrichment, savedAt: date), as: "enrichment:\(enrichment.contactId)", db)
        }
    }

    /// The kept enrichment data of a contact, if it was ever fetched.
    func enrichment(of contactId: String, userId: String) throws -> KeptEnrichment? {
        try database(for: userId).read { db in
            try Data.fetchOne(db, sql: "SELECT body FROM document WHERE name = ?", arguments: ["enrichment:\(contactId)"])
                .map { try Self.decoder.decode(KeptEnrichment.self, from: $0) }
        }
    }
}

/// Enrichment data as kept on the device.
struct KeptEnrichment: Codable {
    var value: ContactEnrichment
    var savedAt: Date
}
