import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Logging

// Sending one operation: coalesced, retried, its errors typed.
extension GraphQLClient {
    /// Sends a query once for identical concurrent callers (same document, variables, user) and
    /// writes the answer, unless a clear happened meanwhile or `store` is false.
    func network<Q: GraphQLQuery>(_ query: Q, _ operation: GraphQLOperation, store: Bool)
        async throws(APIError) -> [String: JSONValue]
    {
        let seen = generation
        let credentials = await configuration.tokenProvider?.currentCredentials()
        let generation = adopt(credentials?.userId, since: seen) ?? seen
        let variables = query.variables
        let key = [
            operation.document, FieldKey.canonical(.object(variables)), credentials?.userId ?? "",
            store ? "store" : "transient",
        ].joined(separator: "\u{1F}")
        return try await inFlight.run(key) { () async throws(APIError) -> [String: JSONValue] in
            let data = try await self.send(operation, variables: variables, credentials: credentials)
            if store { self.write(data, operation, variables: variables, ifGeneration: generation) }
            return data
        }
    }

    /// Posts `{query, operationName, variables}` and decodes the answer.
    func send(
        _ operation: GraphQLOperation, variables: [String: JSONValue], credentials: Credentials?,
        idempotencyKey: String? = nil
    ) async throws(APIError) -> [String: JSONValue] {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.accept] = "application/graphql-response+json, application/json"
        if let credentials { fields[.authorization] = "Bearer \(credentials.accessToken)" }
        var envelope: [String: JSONValue] = [
            "query": .string(operation.document), "operationName": operation.name.map(JSONValue.string) ?? .null,
            "variables": .object(variables),
        ]
        if let idempotencyKey {
            if let name = HTTPField.Name("Idempotency-Key") { fields[name] = idempotencyKey }
            envelope["extensions"] = .object(["idempotencyKey": .string(idempotencyKey)])
        }
        let body = JSONValue.object(envelope).serialized()
        let response = try await sender.send(
            TransportRequest(
                method: .post, url: configuration.endpoint, headerFields: fields, body: body,
                timeout: configuration.requestTimeout),
            idempotent: operation.kind == .query || idempotencyKey != nil, requester: credentials?.userId,
            endpoint: EndpointTemplate.graphQL(path: configuration.endpoint.path, operation: operation.name))
        return try Self.decode(status: response.status, body: response.body)
    }

    /// A response's data, or the error it carries: an `errors` array (with any partial data), a
    /// non-2xx status, or a body that is not a GraphQL response.
    static func decode(status: Int, body: Data) throws(APIError) -> [String: JSONValue] {
        let isSuccess = (200..<300).contains(status)
        guard status != 401, status != 403, case .object(let envelope)? = try? JSONValue.parse(body) else {
            guard isSuccess else { throw APIError(status: status, body: body) }
            do {
                _ = try JSONValue.parse(body)
            } catch {
                throw .decoding(path: "", reason: error.description)
            }
            throw .decoding(path: "", reason: "a GraphQL response must be a JSON object")
        }
        let data: [String: JSONValue]? = if case .object(let data)? = envelope["data"] { data } else { nil }
        if case .array(let errors)? = envelope["errors"], !errors.isEmpty {
            throw .graphQL(GraphQLErrors(errors: errors.map(GraphQLResponseError.init(json:)), data: data))
        }
        guard isSuccess else { throw APIError(status: status, body: body) }
        guard let data else { throw .decoding(path: "data", reason: "the response has neither data nor errors") }
        return data
    }
}
