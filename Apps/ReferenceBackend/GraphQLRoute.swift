import BankSchema
import Foundation
import GraphQL
import Hummingbird
import NIOCore

/// `POST /graphql`: `{query, operationName, variables}` for the signed-in user. 401 without a valid
/// token; 403 when the request reached another user's data; otherwise 200 with `data` and `errors`.
struct GraphQLRoute: Sendable {
    let bank: BankGraphQL
    let auth: AuthRoutes

    private struct Body: Decodable {
        var query: String
        var operationName: String?
        var variables: [String: Map]?
    }

    func register(on router: Router<BackendContext>) {
        router.post("graphql") { request, context in
            guard let claims = auth.claims(request) else { return AuthRoutes.unauthorized() }
            guard let body = try? await request.decode(as: Body.self, context: context) else {
                return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {\"query\", \"variables\"} as JSON.")
            }
            let result = try await bank.execute(
                body.query, variables: body.variables ?? [:],
                operationName: body.operationName, userId: claims.sub)
            if result.errors.contains(where: { $0.extensions["code"] == .string(BankSchema.forbiddenCode) }) {
                return Envelope.failure(.forbidden, code: "FORBIDDEN", message: "This belongs to another user.")
            }
            return Envelope.json(try GraphQLJSONEncoder().encode(result), status: .ok, fields: [.cacheControl: "no-store"])
        }
    }
}
