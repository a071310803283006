import Foundation
import HTTPTypes
import Hummingbird

/// The address book's changes beyond a contact's own (each honours `Idempotency-Key` like
/// ``ContactsRoutes``' changes):
///
/// - `POST /contacts/import` `{"contacts": [{"id", "displayName", "phones", "emails"}]}`: device contacts,
///   with ids the device chose (one already there is left as it is).
/// - `POST /circles` `{"id", "name", "emoji"?, "color"?}`, `PATCH /circles/:id` `{"name"?, "accessPolicies"?}`,
///   `DELETE /circles/:id` (a custom circle; a mandatory one is `409 CIRCLE_REQUIRED`).
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
        router.post("circles") { request, context in
            guard let body = try? await request.decode(as: NewCircle.self, context: context), !body.id.isEmpty, !body.name.isEmpty else {
                return Self.invalid("Send {id, name, emoji?, color?}.")
            }
            return try circles(request) { circles in
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

    /// Changes the user's circles; the answer is every circle, or 404 when `edit` found none to change.
    private func circles(_ request: Request, _ edit: @escaping (inout [CircleRecord]) -> Bool) throws -> Response {
        try change(request) { user, db, _ in
            guard let circles = try BackendDatabase.changeCircles(db, userId: user, edit) else {
                return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such circle, or one that cannot be removed."))
            }
            return (200, try Self.body(circles))
        }
    }
}
