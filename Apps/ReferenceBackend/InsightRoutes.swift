import CacheKit
import Foundation
import HTTPTypes
import Hummingbird

/// The astrology service's endpoints beside the chat history (REQ CHAT-3 to CHAT-5):
///
/// - `GET /astrodata/chart?birth=…`, `/astrodata/dasha?birth=…&year=…`, `/astrodata/transits?birth=…&year=…`:
///   stateless and deterministic for the same birth data; no server cache (`no-store`).
/// - `POST /predict/ask` `{threadId, messageId, question}` and `POST /compatibility/match`
///   `{threadId, messageId, partner}`: a slow model (``ReferenceBackend/Configuration/modelLatency``); a
///   repeat within the session is answered from the session's cache at once. Each exchange is stored in
///   the chat history (compatibility under area `compatibility`), idempotent by `messageId`.
/// - `GET /subscription/profile`: quota and premium status, never cached (`no-store`).
struct InsightRoutes: Sendable {
    let database: BackendDatabase
    let auth: AuthRoutes
    let cache: any BackendCache
    let modelLatency: Duration

    private static let noStore: HTTPFields = [.cacheControl: "no-store"]

    struct Chart: Codable, Sendable {
        var birthHash: String
        var sun: String
        var moon: String
        var ascendant: String
    }
    struct Period: Codable, Sendable {
        var birthHash: String
        var year: Int
        var ruler: String
        var highlights: [String]
    }
    struct Ask: Decodable {
        var threadId: String
        var messageId: String
        var question: String?
        var partner: String?
    }
    struct Answer: Codable, Sendable {
        var threadId: String
        var messageId: String
        var reply: String
        var replyId: String
        var cached: Bool
    }
    struct Birth: Codable, Sendable {
        var dateTime: String
        var latitude: Double
        var longitude: Double
    }
    struct Subscription: Codable, Sendable {
        var premium: Bool
        var questionsToday: Int
        var dailyLimit: Int
        var birthData: Birth
    }

    func register(on router: Router<BackendContext>) {
        router.get("astrodata/:kind") { request, context in
            let query = request.uri.queryParameters
            guard let birth = query["birth"].map(String.init), !birth.isEmpty, birth.count <= 200 else {
                return Envelope.failure(.badRequest, code: "INVALID_BIRTH_DATA", message: "Send birth=<date>T<time>@<lat>,<lon>.")
            }
            let hash = Self.hash(birth)
            switch context.parameters.get("kind") ?? "" {
            case "chart":
                return try Envelope.success(
                    Chart(
                        birthHash: hash, sun: Self.pick(Self.signs, hash, 0), moon: Self.pick(Self.signs, hash, 1),
                        ascendant: Self.pick(Self.signs, hash, 2)), fields: Self.noStore)
            case let kind where ["dasha", "transits"].contains(kind):
                guard let year = query["year"].flatMap({ Int($0) }), (1900...2200).contains(year) else {
                    return Envelope.failure(.badRequest, code: "INVALID_YEAR", message: "year must be 1900 to 2200.")
                }
                let seed = Self.hash("\(birth)|\(kind)|\(year)")
                return try Envelope.success(
                    Period(
                        birthHash: hash, year: year, ruler: Self.pick(Self.planets, seed, 0),
                        highlights: (1...3).map { Self.pick(Self.themes, seed, $0) }), fields: Self.noStore)
            default:
                return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No such astro data.")
            }
        }
        router.post("predict/ask") { request, context in try await answer(request, context, area: "chat") }
        router.post("compatibility/match") { request, context in try await answer(request, context, area: "compatibility") }
        router.get("subscription/profile") { request, _ in
            try auth.authorized(request, for: nil) { user in
                let asked = try database.threads(userId: user.id, area: nil, since: database.now().addingTimeInterval(-86_400)).count
                // The demo users' birth data, from their id (the profile database of a real service).
                let day = 1 + (Int(Self.hash(user.id).prefix(2), radix: 16) ?? 0) % 28
                let birth = Birth(dateTime: String(format: "1990-04-%02dT06:30", day), latitude: 48.85, longitude: 2.35)
                return try Envelope.success(
                    Subscription(
                        premium: user.id.hasSuffix("1"), questionsToday: asked, dailyLimit: 20,
                        birthData: birth), fields: Self.noStore)
            }
        }
    }

    /// Answers a question: the stored reply for a message already answered; the session's cached
    /// answer for a repeated question; else the slow model, stored in the chat history.
    private func answer(_ request: Request, _ context: BackendContext, area: String) async throws -> Response {
        let body = try? await request.decode(as: Ask.self, context: context)
        guard let claims = auth.claims(request), let user = try database.user(id: claims.sub) else { return AuthRoutes.unauthorized() }
        guard let body, !body.threadId.isEmpty, !body.messageId.isEmpty,
            let question = area == "chat" ? body.question : body.partner, !question.isEmpty
        else {
            return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {threadId, messageId, question|partner}.")
        }
        let forbidden = Envelope.failure(.forbidden, code: "FORBIDDEN", message: "This belongs to another user.")
        if let thread = try database.thread(id: body.threadId), thread.userId != user.id { return forbidden }
        let replyId = body.messageId + "-reply"
        if let existing = try database.messages(threadId: body.threadId).first(where: { $0.id == replyId }) {
            return try Envelope.success(
                Answer(
                    threadId: body.threadId, messageId: body.messageId, reply: existing.text,
                    replyId: replyId, cached: true), fields: Self.noStore)
        }
        let sessionKey = "session:\(claims.jti):\(area):\(question.lowercased())"
        let now = database.now()
        var reply = cache.value(forKey: sessionKey, now: now).map { String(decoding: $0, as: UTF8.self) }
        let cached = reply != nil
        if reply == nil {
            try await Task.sleep(for: modelLatency)
            let generated =
                area == "chat"
                ? "The stars say: \(Self.pick(Self.themes, Self.hash(question), 0)) will guide you."
                : "You and \(question): \(Self.pick(Self.themes, Self.hash(question), 1)), a \(70 + (Int(Self.hash(question).prefix(2), radix: 16) ?? 0) % 30)% match."
            cache.set(Data(generated.utf8), forKey: sessionKey, expiry: Date(timeIntervalSince1970: claims.exp))
            reply = generated
        }
        let text = reply ?? ""
        do {
            _ = try database.createThread(id: body.threadId, userId: user.id, title: String(question.prefix(40)), area: area)
            _ = try database.addMessage(id: body.messageId, threadId: body.threadId, userId: user.id, role: "user", text: question)
            _ = try database.addMessage(id: replyId, threadId: body.threadId, userId: user.id, role: "assistant", text: text)
        } catch is ChatOwnershipError {
            return forbidden
        }
        return try Envelope.success(
            Answer(
                threadId: body.threadId, messageId: body.messageId, reply: text, replyId: replyId,
                cached: cached), fields: Self.noStore)
    }

    static let signs = [
        "Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio", "Sagittarius",
        "Capricorn", "Aquarius", "Pisces",
    ]
    static let planets = ["Sun", "Moon", "Mars", "Mercury", "Jupiter", "Venus", "Saturn", "Rahu", "Ketu"]
    static let themes = ["patience", "courage", "curiosity", "generosity", "focus", "rest", "change", "friendship"]

    /// A stable hex hash of `text` (FNV-1a, 64 bits): the same birth data always gives the same answers.
    static func hash(_ text: String) -> String { StableHash.hex(text) }

    static func pick(_ list: [String], _ hash: String, _ salt: Int) -> String {
        let value = hash.unicodeScalars.reduce(salt &* 31) { $0 &* 33 &+ Int($1.value) }
        return list[abs(value % list.count)]
    }
}
