import Foundation
import HTTPTypes
import Hummingbird

/// A user's favorite funnels: `GET /api/favorites`, `PUT` and `DELETE /api/favorites/:slug`.
/// A change honours `Idempotency-Key`: a repeat of a key gets the first answer again (with
/// `Idempotent-Replayed: true`) and changes nothing, so a client may resend after any failure.
struct FavoriteRoutes {
    let database: BackendDatabase
    let auth: AuthRoutes

    private struct Favorites: Encodable {
        var slugs: [String]
    }

    func register(on router: Router<BackendContext>) {
        router.get("api/favorites") { request, _ in
            try auth.authorized(request, for: nil) { user in
                try Envelope.success(
                    Favorites(slugs: try database.favorites(userId: user.id)),
                    fields: [.cacheControl: "private, no-cache"])
            }
        }
        router.put("api/favorites/:slug") { request, context in try change(request, context, add: true) }
        router.delete("api/favorites/:slug") { request, context in try change(request, context, add: false) }
    }

    private func change(_ request: Request, _ context: BackendContext, add: Bool) throws -> Response {
        try auth.authorized(request, for: nil) { user in
            let slug = context.parameters.get("slug") ?? ""
            let key = Self.idempotencyKey.flatMap { request.headers[$0] }
            let fingerprint = request.headers[IdempotencyFingerprint<BackendContext>.field]
            let answer = try database.changeFavorite(
                userId: user.id, slug: slug, add: add, idempotencyKey: key, fingerprint: fingerprint
            ) { known, slugs in
                guard known else { return (404, Envelope.failureBody(code: "NOT_FOUND", message: "No funnel '\(slug)'.")) }
                return (200, try Envelope.successBody(Favorites(slugs: slugs)))
            }
            var fields: HTTPFields = [.cacheControl: "no-store"]
            if answer.replayed, let name = Self.replayed { fields[name] = "true" }
            return Envelope.json(answer.body, status: HTTPResponse.Status(code: answer.status), fields: fields)
        }
    }

    private static let idempotencyKey = HTTPField.Name("Idempotency-Key")
    private static let replayed = HTTPField.Name("Idempotent-Replayed")
}
