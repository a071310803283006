import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// The contacts API of the offline storage specification, per signed-in user (seeded on first use with
/// ``ReferenceBackend/Configuration/contactCount`` deterministic contacts with thumbnails):
///
/// - `GET /contacts?limit=1…500&after=<id>`: live contacts in id order; `X-Next-Cursor` when more follow,
///   `X-Changes-Token` (the user's change counter when the page was read), an `ETag` and `private, no-cache`.
/// - `GET /contacts/changes?since=<token>&limit&after=<cursor>`: what changed after a token, in change
///   order, deletions as `{"id", "deleted": true}`; the same headers. `X-Next-Cursor` is the change number
///   of the page's last entry. Resuming: a run cut part way asks again with the token it *started* from
///   and the cursor it reached (`since=<first token>&after=<cursor>`); the answer is every change after the
///   cursor, so nothing between the cursor and a newer token is skipped. A token or cursor that is not a
///   number, a token ahead of the user's change counter (a log the token did not come from), or one older
///   than the change log's 30 days (deletions before then are forgotten), is `400 INVALID_CURSOR`: sync
///   again in full.
/// - `GET /contacts/:id`, `GET /contacts/:id/enrichment` (company, title, public profiles), `GET /circles`, `GET /score` (30 days of history, recomputed once a day), `GET /suggestions?status=pending`,
///   and `GET /contacts/summary`: the circles, the score, the pending suggestions and the profile (with its
///   shadow profiles) in one answer (what a sync fetches after the contacts).
/// - `PATCH /contacts/:id` `{"displayName"?, "phones"?, "emails"?}`, `DELETE /contacts/:id`, `POST /suggestions/:id/resolve|dismiss`,
///   `POST /premium/subscribe`: each honours `Idempotency-Key` (the same request again gets the first
///   answer, with `Idempotent-Replayed: true`, and changes nothing; the key with another method, path or
///   body gets 422 `IDEMPOTENCY_KEY_REUSED` and changes nothing). Imports, circles and disputes: ``registerChanges(on:)``.
///
/// Dates are ISO 8601 strings.
struct ContactsRoutes {
    let database: BackendDatabase
    let auth: AuthRoutes
    let contactCount: Int
    /// Whether created contacts and circles get the server's own ids (``ReferenceBackend/Configuration/assignsIds``).
    var assignsIds = false

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Wrapped<Payload: Encodable>: Encodable {
        var data: Payload
    }

    private struct Summary: Encodable {
        var circles: [CircleRecord]
        var score: ScoreRecord
        var suggestions: [SuggestionRecord]
        var profile: ProfileRecord?
    }

    private struct Edit: Decodable {
        var displayName: String?
        var phones: [String]?
        var emails: [String]?
    }

    func register(on router: Router<BackendContext>) {
        router.get("contacts") { request, _ in
            try signedIn(request) { user in
                let limit = Int(request.uri.queryParameters["limit"].map(String.init) ?? "") ?? 200
                guard (1...500).contains(limit) else { return Self.invalid("limit must be from 1 to 500") }
                let after = request.uri.queryParameters["after"].map(String.init)
                let page = try database.contacts(userId: user, after: after, limit: limit)
                return try list(request, page.contacts, next: page.more ? page.contacts.last?.id : nil, token: page.seq)
            }
        }
        router.get("contacts/changes") { request, _ in
            try signedIn(request) { user in
                let limit = Int(request.uri.queryParameters["limit"].map(String.init) ?? "") ?? 200
                guard (1...500).contains(limit) else { return Self.invalid("limit must be from 1 to 500") }
                guard let since = Int(request.uri.queryParameters["since"].map(String.init) ?? "") else {
                    return Envelope.failure(
                        .badRequest, code: "INVALID_CURSOR", message: "The changes token is not valid; sync again in full.")
                }
                var after: Int?
                if let cursor = request.uri.queryParameters["after"].map(String.init) {
                    guard let value = Int(cursor) else {
                        return Envelope.failure(.badRequest, code: "INVALID_CURSOR", message: "The cursor is not valid.")
                    }
                    after = value
                }
                // The log keeps 30 days: a token older than that may miss a deletion forgotten since.
                guard try database.changesTokenIsKept(userId: user, since: since) else {
                    return Envelope.failure(
                        .badRequest, code: "INVALID_CURSOR", message: "The changes token is older than the change log; sync again in full.")
                }
                let page = try database.contactChanges(userId: user, since: since, after: after, limit: limit)
                guard since <= page.seq else {
                    return Envelope.failure(
                        .badRequest, code: "INVALID_CURSOR", message: "The changes token is not valid; sync again in full.")
                }
                return try list(request, page.contacts, next: page.more ? page.last.map(String.init) : nil, token: page.seq)
            }
        }
        router.get("contacts/summary") { request, _ in
            try signedIn(request) { user in
                try database.recomputeScoreIfDue(userId: user)
                guard let (circles, score) = try database.circlesAndScore(userId: user) else {
                    return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No address book yet.")
                }
                let summary = Summary(
                    circles: circles, score: score, suggestions: try database.suggestions(userId: user, status: "pending"),
                    profile: try database.profile(userId: user))
                return try Self.json(summary, fields: [.cacheControl: "private, no-cache"])
            }
        }
        router.get("contacts/:id/enrichment") { request, context in
            try signedIn(request) { user in
                let id = context.parameters.get("id") ?? ""
                guard let contact = try database.contact(userId: user, id: id) else {
                    return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No such contact.")
                }
                // The id is the client's (`c-1`, `c9223372036854775807`): only its magnitude picks, never its sign.
                let seed = Int(id.dropFirst()).map { Int($0.magnitude % 60) } ?? id.count
                let enrichment = EnrichmentRecord(
                    contactId: id, company: ["Acme", "Globex", "Initech", "Umbrella", "Hooli"][seed % 5],
                    title: ["Engineer", "Designer", "Manager", "Founder"][seed % 4],
                    profiles: ["linkedin.com/in/\(contact.displayName.lowercased().filter { $0.isLetter })"])
                return try Self.json(enrichment, fields: [.cacheControl: "private, max-age=86400"])
            }
        }
        router.get("contacts/:id") { request, context in
            try signedIn(request) { user in
                guard let contact = try database.contact(userId: user, id: context.parameters.get("id") ?? "") else {
                    return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No such contact.")
                }
                return try Self.json(contact, fields: [.cacheControl: "private, max-age=3600"])
            }
        }
        router.get("circles") { request, _ in
            try signedIn(request) { user in
                try Self.json(try database.circlesAndScore(userId: user)?.circles ?? [], fields: [.cacheControl: "private, max-age=86400"])
            }
        }
        router.get("score") { request, _ in
            try signedIn(request) { user in
                try database.recomputeScoreIfDue(userId: user)
                guard let score = try database.circlesAndScore(userId: user)?.score else {
                    return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No score yet.")
                }
                return try Self.json(score, fields: [.cacheControl: "private, max-age=86400"])
            }
        }
        router.get("suggestions") { request, _ in
            try signedIn(request) { user in
                let status = request.uri.queryParameters["status"].map(String.init) ?? "pending"
                return try Self.json(try database.suggestions(userId: user, status: status), fields: [.cacheControl: "private, no-cache"])
            }
        }
        router.patch("contacts/:id") { request, context in
            guard let edit = try? await request.decode(as: Edit.self, context: context) else {
                return Self.invalid("Send {displayName?, phones?, emails?}.")
            }
            return try editContact(request, id: context.parameters.get("id") ?? "", delete: false) { contact in
                if let name = edit.displayName { contact.displayName = name }
                if let phones = edit.phones { contact.phones = phones }
                if let emails = edit.emails { contact.emails = emails }
            }
        }
        router.delete("contacts/:id") { request, context in
            try editContact(request, id: context.parameters.get("id") ?? "", delete: true)
        }
        router.post("suggestions/:id/:action") { request, context in
            let action = context.parameters.get("action") ?? ""
            guard let status = ["resolve": "resolved", "dismiss": "dismissed"][action] else {
                return Envelope.failure(.notFound, code: "NOT_FOUND", message: "Resolve or dismiss a suggestion.")
            }
            let id = context.parameters.get("id") ?? ""
            return try change(request) { user, db, _ in
                guard let settled = try BackendDatabase.settleSuggestion(db, userId: user, id: id, status: status) else {
                    return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such suggestion."))
                }
                return (200, try Self.body(settled))
            }
        }
        router.post("premium/subscribe") { request, _ in
            try change(request) { user, db, _ in
                try db.execute(
                    sql: "INSERT INTO premium_charge (userId, chargedAt) VALUES (?, ?)",
                    arguments: [user, Date().timeIntervalSince1970])
                return (200, try Self.body(["premium": true]))
            }
        }
        registerChanges(on: router)
    }

    private func editContact(
        _ request: Request, id: String, delete: Bool, _ edit: @escaping @Sendable (inout ContactRecord) -> Void = { _ in }
    ) throws -> Response {
        let now = database.now()
        return try change(request) { user, db, seq in
            guard let contact = try BackendDatabase.editContact(db, userId: user, id: id, delete: delete, seq: seq, now: now, edit) else {
                return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No such contact."))
            }
            if delete, !contact.circles.isEmpty {
                // Its circles lose a member.
                _ = try BackendDatabase.changeCircles(db, userId: user) { circles in
                    for index in circles.indices where contact.circles.contains(circles[index].id) {
                        circles[index].memberCount = max(0, circles[index].memberCount - 1)
                    }
                    return true
                }
            }
            return (200, try Self.body(contact))
        }
    }

    func change(
        _ request: Request, _ body: @escaping (String, GRDB.Database, () throws -> Int) throws -> (status: Int, body: Data)
    ) throws -> Response {
        try signedIn(request) { user in
            let key = Self.idempotencyKey.flatMap { request.headers[$0] }
            let fingerprint = request.headers[IdempotencyFingerprint<BackendContext>.field]
            let answer = try database.changeContacts(userId: user, idempotencyKey: key, fingerprint: fingerprint) { db, seq in
                try body(user, db, seq)
            }
            var fields: HTTPFields = [.cacheControl: "no-store"]
            if answer.replayed, let name = Self.replayed { fields[name] = "true" }
            return Envelope.json(answer.body, status: HTTPResponse.Status(code: answer.status), fields: fields)
        }
    }

    /// The signed-in user's id, their address book seeded on first use.
    private func signedIn(_ request: Request, _ body: (String) throws -> Response) throws -> Response {
        try auth.authorized(request, for: nil) { user in
            try database.ensureContacts(userId: user.id, count: contactCount)
            return try body(user.id)
        }
    }

    private func list(_ request: Request, _ contacts: [ContactRecord], next: String?, token: Int) throws -> Response {
        let body = try Self.body(contacts)
        let etag = "\"contacts:\(String(AvatarImage.crc32(Array(body)[...]), radix: 16))\""
        var fields: HTTPFields = [.cacheControl: "private, no-cache", .eTag: etag]
        if let name = Self.changesToken { fields[name] = String(token) }
        if let next, let name = Self.nextCursor { fields[name] = next }
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: fields) }
        return Envelope.json(body, status: .ok, fields: fields)
    }

    static func body<Payload: Encodable>(_ payload: Payload) throws -> Data {
        try encoder.encode(Wrapped(data: payload))
    }

    static func json<Payload: Encodable>(_ payload: Payload, fields: HTTPFields) throws -> Response {
        Envelope.json(try body(payload), status: .ok, fields: fields)
    }

    static func invalid(_ message: String) -> Response {
        Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: message)
    }

    private static let idempotencyKey = HTTPField.Name("Idempotency-Key")
    private static let replayed = HTTPField.Name("Idempotent-Replayed")
    private static let nextCursor = HTTPField.Name("X-Next-Cursor")
    private static let changesToken = HTTPField.Name("X-Changes-Token")
}
