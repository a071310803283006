import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

// Changes, offline first: each is shown on the device at once and sent through the app's mutation queue,
// once and in order ("Will sync when online"); subscribing is the one that needs the network now.
extension ContactsClient {
    /// Renames a contact: shown at once on the device, sent through the queue once and in order
    /// ("Will sync when online").
    public func rename(contactId: String, to name: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage { try store.rename(userId: user, contactId: contactId, to: name) }
        let body = JSONValue.object(["displayName": .string(name)]).serialized()
        try await enqueue(.patch, "/contacts/\(contactId)", body: body, name: Mutation.edit)
    }

    /// Confirms a duplicate suggestion (the two contacts are one person), queued.
    public func resolveSuggestion(id: String) async throws(ContactsError) {
        try await settle(id, status: "resolved", action: "resolve", name: Mutation.resolveSuggestion)
    }

    /// Dismisses a duplicate suggestion, queued.
    public func dismissSuggestion(id: String) async throws(ContactsError) {
        try await settle(id, status: "dismissed", action: "dismiss", name: Mutation.dismissSuggestion)
    }

    /// Subscribes to premium, now: never queued.
    /// - Throws: ``ContactsError/requiresConnection`` ("Connect to purchase") when the server cannot be reached.
    public func subscribePremium() async throws(ContactsError) {
        do {
            _ = try await rest.send(
                APIRequest<Data>(method: .post, path: "/premium/subscribe", feature: "contacts.premium", idempotencyKey: UUID().uuidString),
                policy: .fetchIgnoringCacheCompletely)
        } catch .transport {
            throw .requiresConnection
        } catch {
            throw .api(error)
        }
    }

    func settle(_ id: String, status: String, action: String, name: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage { try store.settle(userId: user, suggestionId: id, status: status) }
        try await enqueue(.post, "/suggestions/\(id)/\(action)", body: Data("{}".utf8), name: name)
    }

    func enqueue(_ method: HTTPRequest.Method, _ path: String, body: Data, name: String) async throws(ContactsError) {
        guard let queue else { throw .noQueue }
        do {
            try await queue.enqueue(
                .rest(method: method, path: path, headerFields: [.contentType: "application/json"], body: body), name: name,
                idempotencyKey: UUID().uuidString)
        } catch {
            throw .storage(reason: "\(error)")
        }
    }

    /// Imports contacts from the device's address book: shown at once, sent when online (the ids are
    /// chosen here, so a resend adds nothing twice). Returns the contacts as stored.
    @discardableResult
    public func importDeviceContacts(_ drafts: [ContactDraft]) async throws(ContactsError) -> [Contact] {
        let user = try await currentUser()
        let now = Date()
        let contacts = drafts.map {
            Contact(id: "imported-\(UUID().uuidString)", displayName: $0.displayName, phones: $0.phones, emails: $0.emails, updatedAt: now)
        }
        try storage { try store.add(userId: user, contacts: contacts) }
        let body = JSONValue.object([
            "contacts": .array(
                contacts.map {
                    .object([
                        "id": .string($0.id), "displayName": .string($0.displayName), "phones": .array($0.phones.map(JSONValue.string)),
                        "emails": .array($0.emails.map(JSONValue.string)),
                    ])
                })
        ])
        try await enqueue(.post, "/contacts/import", body: body.serialized(), name: Mutation.importContacts)
        return contacts
    }

    /// Creates a custom circle, queued; returns it as shown.
    @discardableResult
    public func createCircle(name: String, emoji: String? = nil, color: String = "#888888") async throws(ContactsError) -> ContactCircle {
        let user = try await currentUser()
        let circle = ContactCircle(
            id: "circle-\(UUID().uuidString)", name: name, emoji: emoji, color: color, type: "custom", memberCount: 0, accessPolicies: [:])
        try storage { try store.changeCircles(userId: user) { $0.append(circle) } }
        var fields: [String: JSONValue] = ["id": .string(circle.id), "name": .string(name), "color": .string(color)]
        if let emoji { fields["emoji"] = .string(emoji) }
        try await enqueue(.post, "/circles", body: JSONValue.object(fields).serialized(), name: Mutation.createCircle)
        return circle
    }

    /// Renames a circle, queued.
    public func renameCircle(id: String, to name: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage {
            try store.changeCircles(userId: user) { circles in
                for index in circles.indices where circles[index].id == id { circles[index].name = name }
            }
        }
        try await enqueue(.patch, "/circles/\(id)", body: JSONValue.object(["name": .string(name)]).serialized(), name: Mutation.editCircle)
    }

    /// Changes who may see one field of a circle's members (`phone` → `nobody`), queued.
    public func setAccessPolicy(circleId: String, field: String, audience: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage {
            try store.changeCircles(userId: user) { circles in
                for index in circles.indices where circles[index].id == circleId { circles[index].accessPolicies[field] = audience }
            }
        }
        let body = JSONValue.object(["accessPolicies": .object([field: .string(audience)])])
        try await enqueue(.patch, "/circles/\(circleId)", body: body.serialized(), name: Mutation.editCircle)
    }

    /// Deletes a custom circle, queued.
    public func deleteCircle(id: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage { try store.changeCircles(userId: user) { $0.removeAll { $0.id == id } } }
        try await enqueue(.delete, "/circles/\(id)", body: Data(), name: Mutation.deleteCircle)
    }

    /// Switches to another shadow profile: shown at once, queued.
    public func switchProfile(to profileId: String) async throws(ContactsError) {
        let user = try await currentUser()
        try storage { try store.switchProfile(userId: user, to: profileId) }
        try await enqueue(
            .put, "/profile/active", body: JSONValue.object(["id": .string(profileId)]).serialized(), name: Mutation.switchProfile)
    }

    /// Files a dispute of the score, queued.
    public func fileDispute(reason: String) async throws(ContactsError) {
        _ = try await currentUser()
        let body = JSONValue.object(["id": .string(UUID().uuidString), "reason": .string(reason)])
        try await enqueue(.post, "/disputes", body: body.serialized(), name: Mutation.fileDispute)
    }
}

/// A contact from the device's own address book, to import.
public struct ContactDraft: Sendable, Hashable {
    /// The name shown.
    public var displayName: String
    /// Phone numbers.
    public var phones: [String]
    /// E-mail addresses.
    public var emails: [String]

    /// Creates a draft.
    public init(displayName: String, phones: [String] = [], emails: [String] = []) {
        self.displayName = displayName
        self.phones = phones
        self.emails = emails
    }
}
