import APICore
import CacheKitTesting
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// An `Idempotency-Key` is bound to the request it came with (security review two, finding 11), attacked as
/// reproduced: the key of an earlier PATCH sent with a DELETE of another contact must not get the PATCH's
/// answer and leave the contact in place silently; it gets 422, and the same request again gets its answer.
@Suite(.timeLimit(.minutes(10))) struct IdempotencyContractTests {
    static let key = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    func send(
        _ fixture: BackendFixture, _ method: HTTPRequest.Method, _ path: String, json: String, token: String, key: String
    ) async throws -> TransportResponse {
        let url = try #require(URL(string: fixture.backend.baseURL.absoluteString + path))
        return try await fixture.transport.send(
            TransportRequest(
                method: method, url: url,
                headerFields: [.contentType: "application/json", .authorization: "Bearer \(token)", Self.key: key],
                body: Data(json.utf8), timeout: TestDeadline.request))
    }

    @Test func aKeyReusedWithAnotherRequestIsRefusedAndTheSameRequestIsReplayed() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.token()
            let first = try await send(fixture, .patch, "/contacts/c1", json: #"{"displayName":"Ada"}"#, token: alice, key: "k-1")
            #expect(first.status == 200)
            let other = try await send(fixture, .delete, "/contacts/c2", json: "", token: alice, key: "k-1")
            #expect(other.status == 422)
            #expect(try JSONValue.parse(other.body)["error"]?["code"]?.stringValue == "IDEMPOTENCY_KEY_REUSED")
            #expect(try await fixture.get("/contacts/c2", token: alice).status == 200, "nothing was deleted")
            // Another body on the same route is another request too.
            let renamed = try await send(fixture, .patch, "/contacts/c1", json: #"{"displayName":"Eve"}"#, token: alice, key: "k-1")
            #expect(renamed.status == 422)
            // The same request again: the first answer, marked as a replay.
            let again = try await send(fixture, .patch, "/contacts/c1", json: #"{"displayName":"Ada"}"#, token: alice, key: "k-1")
            #expect(again.status == 200 && again.headerFields[Self.replayed] == "true")
            #expect(again.body == first.body)
            // Favorites keep their answers under keys as well.
            let slug = "funnel-1"
            #expect(try await send(fixture, .put, "/api/favorites/\(slug)", json: "", token: alice, key: "k-2").status != 422)
            #expect(try await send(fixture, .delete, "/api/favorites/\(slug)", json: "", token: alice, key: "k-2").status == 422)
        }
    }
}
