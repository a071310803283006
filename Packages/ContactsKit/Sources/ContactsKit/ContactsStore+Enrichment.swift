import CacheKit
import Foundation
import GRDB

// Enrichment data kept on the device for offline reading.
extension ContactsStore {
    /// Keeps a contact's enrichment data, with when it was fetched.
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    func saveEnrichment(_ enrichment: ContactEnrichment, at date: Date, lease: UserDatabases.Lease) throws {
        try files.database(for: lease).write { db in
            try Self.save(KeptEnrichment(value: enrichment, savedAt: date), as: "enrichment:\(enrichment.contactId)", db)
        }
    }

    /// The kept enrichment data of a contact, if it was ever fetched.
    func enrichment(of contactId: String, userId: String) throws -> KeptEnrichment? {
        try read(userId, else: nil) { db in try Self.document("enrichment:\(contactId)", db) }
    }
}

/// Enrichment data as kept on the device.
struct KeptEnrichment: Codable {
    var value: ContactEnrichment
    var savedAt: Date
}
