import Foundation
import HTTPTypes
import Hummingbird

/// The address book's changes beyond a contact's own (each honours `Idempotency-Key` like
/// ``ContactsRoutes``' changes):
///
/// - `POST /contacts/import` `{"contacts": [{"id", "displayName", "phones", "emails"}]}`: device contacts,
///   with ids the device chose (one already there is left as it is).
/// - `POST /contacts` `{"id", "displayName", "phones", "emails"}`: a contact created on the device, with the id
///   it chose (201; one already there is left as it is).
/// - `POST /circles` `{"id", "name", "emoji"?, "color"?}`, `PATCH /circles/:id` `{"name"?, "accessPolicies"?,
///   "emoji"? (null removes it), "color"?}`, `DELETE /circles/:id` (a custom circle; a mandatory one is
///   `409 CIRCLE_REQUIRED`).
/// - `PUT /circles/:id/members/:contactId`, `DELETE /circles/:id/members/:contactId`: a contact added to a
///   circle or removed from it; the circle's member count follows (404 for an unknown circle or contact).
/// - `POST /disputes` `{"id", "reason"}`: a dispute of the score; `GET /disputes` lists their reasons.
/// - `PUT /profile/active` `{"id"}`: switches to a shadow profile (`personal` or `work`).
extension ContactsRoutes {
    private struct Import: Decodable {
        var contacts: [BackendDatabase.ImportedContact]
    }

    private struct NewCircle: Decodable {
        var id: String
        var name: String
        var emoji: String?
        var color: String?
    }

    private struct CircleEdit: Decodable {
        var name: String?
        var accessPolicies: [String: String]?
        /// Absent: kept; `null`: removed.
        var emoji: String??
        var color: String?

        private enum CodingKeys: String, CodingKey { case name, accessPolicies, emoji, color }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            accessPolicies = try container.decodeIfPresent([String: String].self, forKey: .accessPolicies)
            color = try container.decodeIfPresent(String.self, forKey: .color)
            if container.contains(.emoji) { emoji = .some(try container.decodeIfPresent(String.self, forKey: .emoji)) }
        }
    }

    private struct ProfileSwitch: Decodable {
        var id: String
    }

    private struct Dispute: Decodable {
        var id: String
        var reason: String
    }

    func registerChanges(on router: Router<BackendContext>) {
        router.post("contacts/import") { request, context in
            guard let body = try? await request.decode(as: Import.self, context: context), body.contacts.count <= 1_000 else {
                return Self.invalid("Send {contacts: [{id, displayName, phones, emails}]}, at most 1,000.")
            }
            let now = database.now()
            return try change(request) { user, db, seq in
                let added = try BackendDatabase.importContacts(db, userId: user, body.contacts, seq: seq, now: now)
                return (200, try Self.body(["imported": added]))
            }
        }
        router.post("contacts") { request, context in
            guard var body = try? await request.decode(as: BackendDatabase.ImportedContact.self, context: context), !body.id.isEmpty else {
                return Self.invalid("Send {id, displayName, phones, emails}.")
            }
            if assignsIds { body.id = Self.assignedId() }
            let now = database.now()
            return try change(request) { user, db, seq in
                _ = try BackendDatabase.importContacts(db, userId: user, [body], seq: seq, now: now)
                return (201, try Self.body(["id": body.id]))
            }
        }
        router.put("circles/:id/members/:contactId") { request, context in
            try membership(
                request, circleId: context.parameters.get("id") ?? "", contactId: context.parameters.get("contactId") ?? "", add: true)
        }
        router.delete("circles/:id/members/:contactId") { request, context in
            try membership(
                request, circleId: context.parameters.get("id") ?? "", contactId: context.parameters.get("contactId") ?? "", add: false)
        }
        router.post("circles") { request, context in
            guard var body = try? await request.decode(as: NewCircle.self, context: context), !body.id.isEmpty, !body.name.isEmpty else {
                return Self.invalid("Send {id, name, emoji?, color?}.")
            }
            if assignsIds { body.id = Self.assignedId() }
            return try circles(request, answeringId: assignsIds ? body.id : nil) { circles in
                guard !circles.contains(where: { $0.id == body.id }) else { return true }
                circles.append(
                    CircleRecord(
                        id: body.id, name: body.name, emoji: body.emoji, color: body.color ?? "#888888", type: "custom", memberCount: 0,
                        accessPolicies: [:]))
                return true
            }
        }
        router.patch("circles/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            let edit = try? await request.decode(as: CircleEdit.self, context: context)
            return try circles(request) { circles in
                guard let index = circles.firstIndex(where: { $0.id == id }) else { return false }
                if let name = edit?.name { circles[index].name = name }
                if let emoji = edit?.emoji { circles[index].emoji = emoji }
                if let color = edit?.color { circles[index].color = color }
                for (field, audience) in edit?.accessPolicies ?? [:] { circles[index].accessPolicies[field] = audience }
                return true
            }
        }
        router.delete("circles/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try circles(request) { circles in
                guard let index = circles.firstIndex(where: { $0.id == id && $0.type == "custom" }) else { return false }
                circles.remove(at: index)
                return true
            }
        }
        router.put("profile/active") { request, context in
            guard let body = try? await request.decode(as: ProfileSwitch.self, context: context) else { return Self.invalid("Send {id}.") }
            return try change(request) { user, db, _ in
                guard try BackendDatabase.switchProfile(db, userId: user, to: body.id) else {
                    return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such profile."))
                }
                return (200, try Self.body(["activeProfile": body.id]))
            }
        }
        router.get("disputes") { request, _ in
            try auth.authorized(request, for: nil) { user in
                try Self.json(try database.disputes(userId: user.id), fields: [.cacheControl: "no-store"])
            }
        }
        router.post("disputes") { request, context in
            guard let body = try? await request.decode(as: Dispute.self, context: context), !body.id.isEmpty, !body.reason.isEmpty else {
                return Self.invalid("Send {id, reason}.")
            }
            let now = database.now()
            return try change(request) { user, db, _ in
                try BackendDatabase.fileDispute(db, userId: user, id: body.id, reason: body.reason, now: now)
                return (201, try Self.body(["id": body.id]))
            }
        }
    }

    /// Adds the contact to the circle or removes it, the circle's member count following; the answer is the
    /// contact.
    private func membership(_ request: Request, circleId: String, contactId: String, add: Bool) throws -> Response {
        let now = database.now()
        return try change(request) { user, db, seq in
            guard try BackendDatabase.changeCircles(db, userId: user, { $0.contains { $0.id == circleId } }) != nil else {
                return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such circle."))
            }
            var delta = 0
            let contact = try BackendDatabase.editContact(db, userId: user, id: contactId, delete: false, seq: seq, now: now) { contact in
                let member = contact.circles.contains(circleId)
                if add, !member {
                    contact.circles.append(circleId)
                    delta = 1
                } else if !add, member {
                    contact.circles.removeAll { $0 == circleId }
                    delta = -1
                }
            }
            guard let contact else { return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such contact.")) }
            if delta != 0 {
                _ = try BackendDatabase.changeCircles(db, userId: user) { circles in
                    for index in circles.indices where circles[index].id == circleId {
                        // Never below zero (a circle deleted and created again with its old members' memberships).
                        circles[index].memberCount = max(0, circles[index].memberCount + delta)
                    }
                    return true
                }
            }
            return (200, try Self.body(contact))
        }
    }

    /// Changes the user's circles; the answer is every circle, or 404 when `edit` found none to change.
    /// Changes the user's circles; answers them all, or `{"id"}` of a circle created under `answeringId`.
    private func circles(_ request: Request, answeringId: String? = nil, _ edit: @escaping (inout [CircleRecord]) -> Bool)
        throws -> Response
    {
        try change(request) { user, db, _ in
            guard let circles = try BackendDatabase.changeCircles(db, userId: user, edit) else {
                return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such circle, or one that cannot be removed."))
            }
            if let answeringId { return (200, try Self.body(["id": answeringId])) }
            return (200, try Self.body(circles))
        }
    }

    /// An id the server chose for a created record.
    static func assignedId() -> String {
        "srv-" + UUID().uuidString.lowercased()
    }
}
