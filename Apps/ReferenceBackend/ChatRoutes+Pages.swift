import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension ChatRoutes {
    /// `GET /chat-history/threads`: a user's threads, oldest change first, in pages after a cursor, each
    /// thread with its messages when asked (`include=messages`), each page with a strong `ETag`.
    func registerThreadPages(on router: Router<BackendContext>) {
        router.get("chat-history/threads") { request, _ in
            try auth.authorized(request, for: nil) { user in
                let query = request.uri.queryParameters
                var since: Date?
                if let text = query["updatedSince"].map(String.init) {
                    guard let date = try? Date(text, strategy: .iso8601) else {
                        return Envelope.failure(.badRequest, code: "INVALID_DATE", message: "updatedSince must be ISO 8601.")
                    }
                    since = date
                }
                var limit: Int?
                if let text = query["limit"] {
                    guard let value = Int(text), (1...500).contains(value) else {
                        return Envelope.failure(.badRequest, code: "INVALID_LIMIT", message: "limit must be 1 to 500.")
                    }
                    limit = value
                }
                var after: (updatedAt: Date, id: String)?
                if let cursor = query["after"].map(String.init) {
                    guard let decoded = Self.decodeCursor(cursor) else {
                        return Envelope.failure(.badRequest, code: "INVALID_CURSOR", message: "The cursor is not one this server gave.")
                    }
                    after = decoded
                }
                let threads = try database.threads(
                    userId: user.id, area: query["area"].map(String.init), since: since, after: after, limit: limit)
                var json = threads.map { ThreadJSON($0) }
                if query["include"] == "messages", includesMessages {
                    let messages = try database.messages(threadIds: threads.map(\.id))
                    json = threads.map { ThreadJSON($0, messages: messages[$0.id] ?? []) }
                }
                var fields = Self.privateFields
                if limit != nil, let last = threads.last, let name = HTTPField.Name("X-Next-Cursor") {
                    fields[name] = Self.encodeCursor(last)
                }
                return try Self.page(Envelope.successBody(json), fields: fields, ifNoneMatch: request.headers[.ifNoneMatch])
            }
        }
    }

    /// A page with its strong `ETag` (a hash of its body): a 304 when the client holds the same page.
    static func page(_ body: Data, fields: HTTPFields, ifNoneMatch: String?) -> Response {
        var fields = fields
        let tag = "\"" + SHA256.hash(data: body).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        fields[.eTag] = tag
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) {
            return Response(status: .notModified, headers: fields)
        }
        return Envelope.json(body, status: .ok, fields: fields)
    }
}
