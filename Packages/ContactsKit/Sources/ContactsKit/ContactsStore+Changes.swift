import CacheKit
import Foundation
import GRDB

// Changes made on the device, shown at once while the queue sends them; the next sync brings the server's
// state over them.
extension ContactsStore {
    /// Applies a change made on the device (shown at once; the queue sends it): a new name.
    func rename(userId: String, contactId: String, to name: String) throws {
        let (database, index) = try opened(userId)
        try database.write { db in
            guard var row = try ContactRow.fetchOne(db, key: contactId) else { return }
            var contact = try row.contact()
            contact.displayName = name
            row = try ContactRow(contact, seen: row.seen)
            try row.save(db)
            index.upsert(contact.searchDocument, in: db)
        }
    }

    /// Marks a suggestion settled on the device (`resolved` or `dismissed`).
    func settle(userId: String, suggestionId: String, status: String) throws {
        try database(for: userId).write { db in
            var suggestions: [DuplicateSuggestion] =
                try Data.fetchOne(db, sql: "SELECT body FROM document WHERE name = 'suggestions'")
                .map { try Self.decoder.decode([DuplicateSuggestion].self, from: $0) } ?? []
            for index in suggestions.indices where suggestions[index].id == suggestionId { suggestions[index].status = status }
            try Self.save(suggestions, as: "suggestions", db)
        }
    }

    /// Adds contacts (imported from the device), indexed when the write commits.
    func add(userId: String, contacts: [Contact]) throws {
        let (database, index) = try opened(userId)
        try database.write { db in
            for contact in contacts {
                try ContactRow(contact, seen: true).save(db)
                index.upsert(contact.searchDocument, in: db)
            }
        }
    }

    /// Changes the user's circles in place.
    func changeCircles(userId: String, _ change: (inout [ContactCircle]) throws -> Void) throws {
        try database(for: userId).write { db in
            var circles: [ContactCircle] =
                try Data.fetchOne(db, sql: "SELECT body FROM document WHERE name = 'circles'")
                .map { try Self.decoder.decode([ContactCircle].self, from: $0) } ?? []
            try change(&circles)
            try Self.save(circles, as: "circles", db)
        }
    }

    /// Makes `profileId` the active shadow profile on the device.
    func switchProfile(userId: String, to profileId: String) throws {
        try database(for: userId).write { db in
            guard
                var profile = try Data.fetchOne(db, sql: "SELECT body FROM document WHERE name = 'profile'")
                    .map({ try Self.decoder.decode(ContactProfile.self, from: $0) })
            else { return }
            profile.activeProfile = profileId
            try Self.save(profile, as: "profile", db)
        }
    }
}
