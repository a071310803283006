import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Binds an `Idempotency-Key` to the request it came with (security review two, finding 11): for a request
/// carrying a key, a SHA-256 of its method, path and query, and body is put in ``field`` for the routes to
/// store beside the key's answer. A key sent again with another request is answered 422
/// (`IDEMPOTENCY_KEY_REUSED`) instead of the first request's answer. A client's own value of ``field`` is
/// always dropped. Only a signed-in caller's body is read: a stranger's keyed request goes on unread, to the
/// route's 401.
struct IdempotencyFingerprint<Context: RequestContext>: RouterMiddleware {
    /// Whether the request carries a valid token: only then is its body read to be fingerprinted.
    let isSignedIn: @Sendable (Request) -> Bool

    /// Where the routes read the fingerprint.
    static var field: HTTPField.Name { HTTPField.Name("X-MIB-Request-Fingerprint")! }
    /// The key's field.
    static var keyField: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }
    /// The largest body fingerprinted (larger ones are refused by the routes' own limits first).
    static var maxBodySize: Int { 16 * 1024 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var head = request.head
        head.headerFields[Self.field] = nil
        guard request.headers[Self.keyField] != nil, isSignedIn(request) else {
            return try await next(Request(head: head, body: request.body), context)
        }
        let body = try await request.body.collect(upTo: Self.maxBodySize)
        var hash = SHA256()
        hash.update(data: Data("\(request.method.rawValue) \(request.uri.string)\n".utf8))
        hash.update(data: Data(body.readableBytesView))
        head.headerFields[Self.field] = hash.finalize().map { String(format: "%02x", $0) }.joined()
        let request = Request(head: head, body: RequestBody(buffer: body))
        return try await next(request, context)
    }

    /// The answer to a key reused with another request.
    static func reused() -> Data {
        Envelope.failureBody(
            code: "IDEMPOTENCY_KEY_REUSED",
            message: "This Idempotency-Key was used for another request; send a new key for a new request.")
    }
}
