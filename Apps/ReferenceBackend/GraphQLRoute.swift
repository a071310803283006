import BankSchema
import Foundation
import GraphQL
import Hummingbird
import NIOCore

/// `POST /graphql`: `{query, operationName, variables}` for the signed-in user. 401 without a valid
/// token; 403 when the request reached another user's data; otherwise 200 with `data` and `errors`. A
/// payment sent with an `Idempotency-Key` is applied once per key: sent again, it is answered with the first
/// payment's transaction.
struct GraphQLRoute: Sendable {
    let bank: BankGraphQL
    let auth: AuthRoutes

    private struct Body: Decodable {
        var query: String
        var operationName: String?
        var variables: [String: Map]?
    }

    /// The longest query accepted, in UTF-8 bytes.
    static let maximumQueryBytes = 100_000
    /// The deepest nesting of `{`, `[` and `(` accepted.
    static let maximumDepth = 64

    /// Why `query` is refused before parsing, in one sentence, or `nil`.
    static func problem(ofQuery query: String) -> String? {
        guard query.utf8.count <= maximumQueryBytes else { return "The query is longer than \(maximumQueryBytes) bytes." }
        var depth = 0
        for byte in query.utf8 {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                if depth > maximumDepth { return "The query nests deeper than \(maximumDepth) levels." }
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth -= 1
            default:
                break
            }
        }
        return nil
    }

    func register(on router: Router<BackendContext>) {
        router.post("graphql") { request, context in
            guard let claims = auth.claims(request) else { return AuthRoutes.unauthorized() }
            guard let body = try? await request.decode(as: Body.self, context: context) else {
                return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {\"query\", \"variables\"} as JSON.")
            }
            // The parser recurses once per level: a deeply nested document (`{a{a{a…` in 2 MB) would overflow
            // the stack and end the process for every user, so depth and size are bounded first.
            if let problem = Self.problem(ofQuery: body.query) {
                return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: problem)
            }
            let result: GraphQLResult
            do {
                result = try await bank.execute(
                    body.query, variables: body.variables ?? [:], operationName: body.operationName, userId: claims.sub,
                    idempotencyKey: request.headers[IdempotencyFingerprint<BackendContext>.keyField])
            } catch let error as GraphQLError {
                // A document that does not parse (or names no operation it has) is the client's: a 400, never a 500.
                return Envelope.failure(.badRequest, code: "INVALID_QUERY", message: "The query cannot be run: \(error.message)")
            }
            if result.errors.contains(where: { $0.extensions["code"] == .string(BankSchema.forbiddenCode) }) {
                return Envelope.failure(.forbidden, code: "FORBIDDEN", message: "This belongs to another user.")
            }
            return Envelope.json(try GraphQLJSONEncoder().encode(result), status: .ok, fields: [.cacheControl: "no-store"])
        }
    }
}
