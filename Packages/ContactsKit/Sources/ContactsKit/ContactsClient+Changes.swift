import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

// Changes, offline first: each is shown on the device at once, kept with its effect until the server
// confirms it, and sent through the app's mutation queue, once and in order ("Will sync when online"); a
// sync never undoes one still pending, and one the server refuses is undone (``ContactsEvent``).
// Subscribing is the one that needs the network now.
extension ContactsClient {
    /// Renames a contact: shown at once on the device, sent through the queue once and in order
    /// ("Will sync when online").
    @discardableResult
    public func rename(contactId: String, to name: String) async throws(ContactsError) -> ContactsChange {
        try await editContact(id: contactId, ContactEdit(displayName: name))
    }

    /// Edits a contact's name, phone numbers or e-mail addresses (the fields the edit gives), queued.
    @discardableResult
    public func editContact(id: String, _ edit: ContactEdit) async throws(ContactsError) -> ContactsChange {
        var fields: [String: JSONValue] = [:]
        if let name = edit.displayName { fields["displayName"] = .string(name) }
        if let phones = edit.phones { fields["phones"] = .array(phones.map(JSONValue.string)) }
        if let emails = edit.emails { fields["emails"] = .array(emails.map(JSONValue.string)) }
        return try await change(
            .editContact(contactId: id, edit: edit), .patch, PathSegments.path("contacts", id), body: JSONValue.object(fields).serialized(),
            name: Mutation.edit, recordId: id)
    }

    /// Creates a contact: shown at once (its id chosen on the device), queued. The handle's
    /// ``ContactsChange/recordId`` is the new contact's id.
    @discardableResult
    public func createContact(name: String, phones: [String] = [], emails: [String] = []) async throws(ContactsError) -> ContactsChange {
        let contact = Contact(id: "contact-\(UUID().uuidString)", displayName: name, phones: phones, emails: emails, updatedAt: clock.now())
        let body = JSONValue.object([
            "id": .string(contact.id), "displayName": .string(name), "phones": .array(phones.map(JSONValue.string)),
            "emails": .array(emails.map(JSONValue.string)),
        ])
        return try await change(
            .createContact(contact), .post, "/contacts", body: body.serialized(), name: Mutation.createContact, recordId: contact.id,
            creates: contact.id)
    }

    /// Deletes a contact: gone from the device at once, queued.
    @discardableResult
    public func deleteContact(id: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .deleteContact(id: id), .delete, PathSegments.path("contacts", id), body: Data(), name: Mutation.deleteContact, recordId: id)
    }

    /// Adds a contact to a circle, queued.
    @discardableResult
    public func addContact(_ contactId: String, toCircle circleId: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .addToCircle(contactId: contactId, circleId: circleId), .put, PathSegments.path("circles", circleId, "members", contactId),
            body: Data(), name: Mutation.editMembers, recordId: contactId)
    }

    /// Removes a contact from a circle, queued.
    @discardableResult
    public func removeContact(_ contactId: String, fromCircle circleId: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .removeFromCircle(contactId: contactId, circleId: circleId), .delete,
            PathSegments.path("circles", circleId, "members", contactId), body: Data(), name: Mutation.editMembers, recordId: contactId)
    }

    /// Sets a circle's emoji (`nil`: none) and colour (`#RRGGBB`), queued.
    @discardableResult
    public func restyleCircle(id: String, emoji: String?, color: String) async throws(ContactsError) -> ContactsChange {
        let body = JSONValue.object(["emoji": emoji.map(JSONValue.string) ?? .null, "color": .string(color)])
        return try await change(
            .restyleCircle(id: id, emoji: emoji, color: color), .patch, PathSegments.path("circles", id), body: body.serialized(),
            name: Mutation.editCircle, recordId: id)
    }

    /// Confirms a duplicate suggestion (the two contacts are one person), queued.
    @discardableResult
    public func resolveSuggestion(id: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .settle(suggestionId: id, status: "resolved"), .post, PathSegments.path("suggestions", id, "resolve"), body: Data("{}".utf8),
            name: Mutation.resolveSuggestion)
    }

    /// Dismisses a duplicate suggestion, queued.
    @discardableResult
    public func dismissSuggestion(id: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .settle(suggestionId: id, status: "dismissed"), .post, PathSegments.path("suggestions", id, "dismiss"), body: Data("{}".utf8),
            name: Mutation.dismissSuggestion)
    }

    /// The most contacts one import request carries (the server refuses more); a larger import is sent in
    /// chunks of this size, each its own queued change.
    public static let importChunkSize = 1_000

    /// Imports contacts from the device's address book: shown at once, sent when online in chunks of at
    /// most ``importChunkSize``. Idempotent: a contact's id comes from its draft's ``ContactDraft/deviceId``,
    /// and a chunk's idempotency key from its ids, so an import run again after an interruption adds
    /// nothing twice, on the device or on the server. Returns the contacts as stored.
    @discardableResult
    public func importDeviceContacts(_ drafts: [ContactDraft]) async throws(ContactsError) -> [Contact] {
        let user = try await currentUser()
        let now = clock.now()
        var seen = Set<String>()
        let contacts = drafts.compactMap { draft -> Contact? in
            let id = Self.importedId(deviceId: draft.deviceId)
            guard seen.insert(id).inserted else { return nil }
            return Contact(id: id, displayName: draft.displayName, phones: draft.phones, emails: draft.emails, updatedAt: now)
        }
        for start in stride(from: 0, to: contacts.count, by: importChunk) {
            let chunk = Array(contacts[start..<min(start + importChunk, contacts.count)])
            let body = JSONValue.object([
                "contacts": .array(
                    chunk.map {
                        .object([
                            "id": .string($0.id), "displayName": .string($0.displayName), "phones": .array($0.phones.map(JSONValue.string)),
                            "emails": .array($0.emails.map(JSONValue.string)),
                        ])
                    })
            ])
            // The key follows the user and the chunk's content (SHA-256): the same import again is one change on
            // the server, an import of the same contacts edited since is a new one (the server refuses a key
            // reused for another body), and two users importing the same address book never share a key.
            let serialized = body.serialized()
            try await change(
                .importContacts(chunk), .post, "/contacts/import", body: serialized, name: Mutation.importContacts,
                key: "import-" + StableHash.sha256(user + "\u{1F}" + String(decoding: serialized, as: UTF8.self)), for: user)
        }
        return contacts
    }

    /// The id of the contact imported from the device's contact `deviceId`: the same on every run.
    static func importedId(deviceId: String) -> String {
        "imported-" + StableHash.hex(deviceId)
    }

    /// Creates a custom circle, queued; returns it as shown (its change: ``ContactsChange/recordId`` is its id).
    @discardableResult
    public func createCircle(name: String, emoji: String? = nil, color: String = "#888888") async throws(ContactsError) -> ContactCircle {
        let circle = ContactCircle(
            id: "circle-\(UUID().uuidString)", name: name, emoji: emoji, color: color, type: .custom, memberCount: 0, accessPolicies: [:])
        var fields: [String: JSONValue] = ["id": .string(circle.id), "name": .string(name), "color": .string(color)]
        if let emoji { fields["emoji"] = .string(emoji) }
        try await change(
            .createCircle(circle), .post, "/circles", body: JSONValue.object(fields).serialized(), name: Mutation.createCircle,
            creates: circle.id)
        return circle
    }

    /// Renames a circle, queued.
    @discardableResult
    public func renameCircle(id: String, to name: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .renameCircle(id: id, name: name), .patch, PathSegments.path("circles", id),
            body: JSONValue.object(["name": .string(name)]).serialized(),
            name: Mutation.editCircle)
    }

    /// Changes who may see one field of a circle's members (`phone` → `nobody`), queued.
    @discardableResult
    public func setAccessPolicy(circleId: String, field: String, audience: AccessAudience) async throws(ContactsError) -> ContactsChange {
        let body = JSONValue.object(["accessPolicies": .object([field: .string(audience.rawValue)])])
        return try await change(
            .setAccessPolicy(circleId: circleId, field: field, audience: audience.rawValue), .patch, PathSegments.path("circles", circleId),
            body: body.serialized(), name: Mutation.editCircle)
    }

    /// Deletes a custom circle, queued.
    @discardableResult
    public func deleteCircle(id: String) async throws(ContactsError) -> ContactsChange {
        try await change(.deleteCircle(id: id), .delete, PathSegments.path("circles", id), body: Data(), name: Mutation.deleteCircle)
    }

    /// Switches to another shadow profile: shown at once, queued.
    @discardableResult
    public func switchProfile(to profileId: String) async throws(ContactsError) -> ContactsChange {
        try await change(
            .switchProfile(id: profileId), .put, "/profile/active", body: JSONValue.object(["id": .string(profileId)]).serialized(),
            name: Mutation.switchProfile)
    }

    /// Files a dispute of the score, queued.
    public func fileDispute(reason: String) async throws(ContactsError) {
        let user = try await currentUser()
        let body = JSONValue.object(["id": .string(UUID().uuidString), "reason": .string(reason)])
        try await enqueue(.post, "/disputes", body: body.serialized(), name: Mutation.fileDispute, key: UUID().uuidString, owner: user)
    }

    // MARK: Steps

    /// Applies `local` on the device and keeps it, then queues the request with the same key; the kept
    /// change is forgotten when the server confirms it and undone when the server refuses it.
    @discardableResult
    func change(
        _ local: LocalChange, _ method: HTTPRequest.Method, _ path: String, body: Data, name: String, key: String = UUID().uuidString,
        recordId: String? = nil, creates: String? = nil, for user: String? = nil
    ) async throws(ContactsError) -> ContactsChange {
        let handle = ContactsChange(id: key, mutation: name, recordId: recordId ?? local.contactIds.first ?? local.circleIds.first)
        guard let queue else { throw .noQueue }
        let lease = try await currentLease()
        // A change begun for one user (an import's later chunks) is never filed for another who signed in since.
        if let user, lease.userId != user { throw .signedOut }
        // A screen may hold a record's device id after the kit renamed it to the server's: the change acts on
        // the record under its new id (the store resolves it again when it records the change, and the queue
        // rewrites the request).
        let local = (try? store.resolvingRenamedIds(in: local, userId: lease.userId)) ?? local
        let required = local.required
        let present = try storage {
            try required.contacts.allSatisfy { try store.contact(userId: lease.userId, id: $0) != nil }
                && (required.circles.isEmpty || Set(try store.circles(userId: lease.userId).map(\.id)).isSuperset(of: required.circles))
        }
        guard present else { throw .notFound }
        let photos = thumbnails(of: local.contactIds, lease: lease)
        Self.beginRecording(key)
        do {
            try storage { try store.record(local, key: key, lease: lease) }
        } catch {
            // Not recorded: a change a killed process left under the same key (an import's chunk) is the pass's again.
            Self.endRecording(key)
            throw error
        }
        dropThumbnails(photos, ofContactsGoneFrom: lease)
        // The same change asked again (an import run again after an interruption) is queued once.
        if let queued = await queue.pending().first(where: { $0.idempotencyKey == key }) {
            markQueued(key, mutationId: queued.id, lease: lease)
            return handle
        }
        let mutation: QueuedMutation
        do {
            mutation = try await enqueue(method, path, body: body, name: name, key: key, creates: creates, owner: lease.userId)
        } catch {
            // Never queued, so never sent: undone on the device (now, in the background, or by the next pass that can
            // fetch the server's values), never left applied for a server that will not hear of it.
            Self.notQueued.withLock { _ = $0.insert(key) }
            Self.endRecording(key)
            Task { await self.undoNotQueued(key, lease: lease) }
            throw error
        }
        markQueued(key, mutationId: mutation.id, lease: lease)
        return handle
    }

    /// Marks the kept change `key` as queued; its recording ends once the mark is on disk (until then a pass must not
    /// take it, unmarked and perhaps already sent, for one that never reached the queue).
    private func markQueued(_ key: String, mutationId: Int64, lease: UserDatabases.Lease) {
        guard (try? store.markQueued(key: key, mutationId: mutationId, lease: lease)) != nil else { return }
        Self.endRecording(key)
    }

    @discardableResult
    func enqueue(
        _ method: HTTPRequest.Method, _ path: String, body: Data, name: String, key: String, creates: String? = nil,
        owner: String? = nil
    ) async throws(ContactsError) -> QueuedMutation {
        guard let queue else { throw .noQueue }
        do {
            return try await queue.enqueue(
                .rest(method: method, path: path, headerFields: [.contentType: "application/json"], body: body), name: name,
                idempotencyKey: key, creates: creates, owner: owner)
        } catch .sessionChanged, .signedOut {
            throw .signedOut
        } catch {
            throw .storage(reason: "\(error)")
        }
    }
}

/// A contact from the device's own address book, to import.
public struct ContactDraft: Sendable, Hashable {
    /// The contact's identifier in the device's address book (`CNContact.identifier` on iOS): what makes an
    /// import idempotent.
    public var deviceId: String
    /// The name shown.
    public var displayName: String
    /// Phone numbers.
    public var phones: [String]
    /// E-mail addresses.
    public var emails: [String]

    /// Creates a draft.
    public init(deviceId: String, displayName: String, phones: [String] = [], emails: [String] = []) {
        self.deviceId = deviceId
        self.displayName = displayName
        self.phones = phones
        self.emails = emails
    }

}
