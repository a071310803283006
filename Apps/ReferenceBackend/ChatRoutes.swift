import CacheKit
import Foundation
import HTTPTypes
import Hummingbird

/// The chat history (REQ CHAT-1) (the backend is the source of truth a reinstalled app syncs from) and
/// today's prediction (one per user and date, cached by the server until that date ends).
///
/// - `GET /chat-history/threads[?area=chat|compatibility][&updatedSince=ISO8601][&limit=N&after=CURSOR][&include=messages]`:
///   oldest change first; a page of `limit` (1 to 500) carries `X-Next-Cursor`, the cursor after its last
///   thread (a client keeps it to ask later for what changed since); fewer than `limit` threads means no more
///   now. With `include=messages` each thread carries its messages, so a restore takes one request a page,
///   not one a thread. Every page has a strong `ETag` and answers a matching `If-None-Match` with a 304.
/// - `POST /chat-history/threads` `{id, title, area}`: 201, or 200 with the existing thread on a retry
/// - `GET /chat-history/threads/{id}/messages`, `POST` `{id, role, text}` (idempotent by id), `DELETE /chat-history/threads/{id}`
/// - `GET /todays-prediction[?date=YYYY-MM-DD]`: `X-Backend-Cache: HIT | MISS`
struct ChatRoutes: Sendable {
    let database: BackendDatabase
    let auth: AuthRoutes
    let predictions: PredictionCache
    /// Whether `include=messages` embeds each thread's messages (`false`: a server from before paged
    /// restore, one request a thread, for the benchmark's side-by-side).
    var includesMessages = true

    private struct NewThread: Decodable {
        var id: String
        var title: String
        var area: String?
    }

    private struct NewMessage: Decodable {
        var id: String
        var role: String
        var text: String
    }

    struct ThreadJSON: Encodable {
        var id: String
        var title: String
        var area: String
        var createdAt: String
        var updatedAt: String
        /// With `include=messages` only.
        var messages: [MessageJSON]?

        init(_ thread: ChatThread, messages: [ChatMessage]? = nil) {
            self.messages = messages?.map(MessageJSON.init)
            id = thread.id
            title = thread.title
            area = thread.area
            createdAt = ISO8601.string(thread.createdAt)
            updatedAt = ISO8601.string(thread.updatedAt)
        }
    }

    struct MessageJSON: Encodable {
        var id: String
        var threadId: String
        var role: String
        var text: String
        var createdAt: String

        init(_ message: ChatMessage) {
            id = message.id
            threadId = message.threadId
            role = message.role
            text = message.text
            createdAt = ISO8601.string(message.createdAt)
        }
    }

    static let privateFields: HTTPFields = [.cacheControl: "private, no-cache"]

    /// An opaque page cursor: the last thread's change time and id.
    static func encodeCursor(_ thread: ChatThread) -> String {
        Data("\(thread.updatedAt.timeIntervalSince1970)|\(thread.id)".utf8).base64EncodedString()
    }

    static func decodeCursor(_ cursor: String) -> (updatedAt: Date, id: String)? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            let bar = text.firstIndex(of: "|"), let seconds = Double(text[..<bar]), seconds.isFinite
        else { return nil }
        return (Date(timeIntervalSince1970: seconds), String(text[text.index(after: bar)...]))
    }

    func register(on router: Router<BackendContext>) {
        registerThreadPages(on: router)
        router.post("chat-history/threads") { request, context in
            let body = try? await request.decode(as: NewThread.self, context: context)
            return try auth.authorized(request, for: nil) { user in
                guard let body, !body.id.isEmpty, ["chat", "compatibility"].contains(body.area ?? "chat") else {
                    return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {id, title, area: chat|compatibility}.")
                }
                do {
                    let (thread, created) = try database.createThread(
                        id: body.id, userId: user.id, title: body.title, area: body.area ?? "chat")
                    return try Envelope.success(ThreadJSON(thread), status: created ? .created : .ok)
                } catch is ChatOwnershipError {
                    return Self.forbidden()
                }
            }
        }
        router.get("chat-history/threads/:id/messages") { request, context in
            try withThread(request, context) { thread in
                try Envelope.success(try database.messages(threadId: thread.id).map(MessageJSON.init), fields: Self.privateFields)
            }
        }
        router.post("chat-history/threads/:id/messages") { request, context in
            let body = try? await request.decode(as: NewMessage.self, context: context)
            return try withThread(request, context) { thread in
                guard let body, !body.id.isEmpty, ["user", "assistant"].contains(body.role) else {
                    return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {id, role: user|assistant, text}.")
                }
                do {
                    let (message, created) = try database.addMessage(
                        id: body.id, threadId: thread.id, userId: thread.userId, role: body.role, text: body.text)
                    return try Envelope.success(MessageJSON(message), status: created ? .created : .ok)
                } catch is ChatOwnershipError {
                    return Self.forbidden()
                }
            }
        }
        router.delete("chat-history/threads/:id") { request, context in
            try withThread(request, context) { thread in
                _ = try database.deleteThread(id: thread.id)
                return Response(status: .noContent)
            }
        }
        router.get("todays-prediction") { request, _ in
            try auth.authorized(request, for: nil) { user in
                let text = request.uri.queryParameters["date"].map(String.init)
                guard let day = PredictionCache.Day(text ?? PredictionCache.Day.today(database.now())) else {
                    return Envelope.failure(.badRequest, code: "INVALID_DATE", message: "date must be YYYY-MM-DD.")
                }
                let (prediction, hit) = predictions.prediction(for: user.id, on: day, now: database.now())
                var fields: HTTPFields = [.cacheControl: "private, max-age=\(max(0, Int(day.end.timeIntervalSince(database.now()))))"]
                if let name = HTTPField.Name("X-Backend-Cache") { fields[name] = hit ? "HIT" : "MISS" }
                return try Envelope.success(prediction, fields: fields)
            }
        }
    }

    private func withThread(
        _ request: Request, _ context: BackendContext,
        _ body: (ChatThread) throws -> Response
    ) throws -> Response {
        try auth.authorized(request, for: nil) { user in
            let id = context.parameters.get("id") ?? ""
            guard let thread = try database.thread(id: id) else {
                return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No thread '\(id)'.")
            }
            guard thread.userId == user.id else { return Self.forbidden() }
            return try body(thread)
        }
    }

    static func forbidden() -> Response {
        Envelope.failure(.forbidden, code: "FORBIDDEN", message: "This belongs to another user.")
    }
}

/// Today's prediction, generated once per user and date and kept in the ``BackendCache`` under
/// `todays_prediction:<user>:<date>` until the date ends (UTC): a 24 h TTL that expires at midnight
/// (REQ CHAT-2).
final class PredictionCache: Sendable {
    /// A calendar day in UTC.
    struct Day: Hashable, Sendable {
        var text: String
        var start: Date

        init?(_ text: String) {
            guard text.count == 10, let start = try? Date(text + "T00:00:00Z", strategy: .iso8601) else { return nil }
            self.text = text
            self.start = start
        }

        var end: Date { start.addingTimeInterval(86_400) }

        static func today(_ now: Date) -> String { String(ISO8601.string(now).prefix(10)) }
    }

    struct Prediction: Codable, Sendable {
        var date: String
        var text: String
        var generatedAt: String
    }

    private let cache: any BackendCache
    private let generations = Locked(0)

    init(cache: any BackendCache = InMemoryBackendCache()) {
        self.cache = cache
    }

    /// How many predictions were generated (cache misses), for checks.
    var generated: Int { generations.withLock { $0 } }

    func prediction(for userId: String, on day: Day, now: Date) -> (Prediction, hit: Bool) {
        let key = "todays_prediction:\(userId):\(day.text)"
        if let data = cache.value(forKey: key, now: now), let cached = try? JSONDecoder().decode(Prediction.self, from: data) {
            return (cached, true)
        }
        generations.withLock { $0 += 1 }
        let moods = ["calm", "bold", "curious", "patient", "generous"]
        // A stable choice (`hashValue` changes between runs).
        let mood = moods[(userId + day.text).unicodeScalars.reduce(0) { $0 + Int($1.value) } % moods.count]
        let prediction = Prediction(date: day.text, text: "A \(mood) day: trust the small steps.", generatedAt: ISO8601.string(now))
        if let data = try? JSONEncoder().encode(prediction) { cache.set(data, forKey: key, expiry: day.end) }
        return (prediction, false)
    }
}
