import APICore
import Foundation

/// A refusal's error as the queue's file keeps it: the server's envelope, a bare status with its body, or a
/// GraphQL error array as they came; any other error by its description (read back as
/// `APIError/invalidRequest(reason:)`).
struct StoredRefusal: Codable, Hashable {
    var kind: String
    var status: Int?
    var code: String?
    var message: String?
    var details: [String: JSONValue]?
    var body: Data?
    var errors: [GraphQLResponseError]?
    var data: [String: JSONValue]?

    init(_ error: APIError) {
        switch error {
        case .server(let server):
            self.init(kind: "server", status: server.status, code: server.code, message: server.message, details: server.details)
        case .status(let code, let body):
            self.init(kind: "status", status: code, body: body)
        case .graphQL(let failure):
            self.init(kind: "graphQL", errors: failure.errors, data: failure.data)
        default:
            self.init(kind: "other", message: "\(error)")
        }
    }

    private init(
        kind: String, status: Int? = nil, code: String? = nil, message: String? = nil, details: [String: JSONValue]? = nil,
        body: Data? = nil, errors: [GraphQLResponseError]? = nil, data: [String: JSONValue]? = nil
    ) {
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.body = body
        self.errors = errors
        self.data = data
    }

    /// The error as it was refused (its description alone for a kind the file does not keep whole).
    var error: APIError {
        switch kind {
        case "server":
            .server(ServerError(status: status ?? 400, code: code ?? "", message: message ?? "", details: details))
        case "status":
            .status(code: status ?? 400, body: body ?? Data())
        case "graphQL":
            .graphQL(GraphQLErrors(errors: errors ?? [], data: data))
        default:
            .invalidRequest(reason: message ?? "refused")
        }
    }
}
