import APICoreTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreREST

/// REQ OFF-7, at the last step: a queued change is sent only while its owner is signed in. If another
/// user signed in between the queue reading its user and the request being prepared, nothing leaves.
@Suite(.timeLimit(.minutes(10))) struct QueuedSendOwnerTests {
    @Test func aQueuedChangeOfAnotherUserIsNotSentWithTheSignedInUsersToken() async throws {
        let transport = RecordingTransport()
        transport.stub(.put, "/api/favorites/f1", status: 200)
        let fixture = try ClientFixture(
            baseURL: URL(string: "https://api.example.com")!, transport: transport,
            credentials: Credentials(accessToken: "token-b", userId: "user-b"))
        let sent = try await fixture.client.sendQueued(
            method: .put, path: "/api/favorites/f1", headerFields: [:], body: nil, idempotencyKey: "k1", owner: "user-a")
        #expect(sent == nil && transport.requests.isEmpty, "user-a's change never leaves with user-b's token")
        let own = try await fixture.client.sendQueued(
            method: .put, path: "/api/favorites/f1", headerFields: [:], body: nil, idempotencyKey: "k2", owner: "user-b")
        #expect(own != nil && transport.requests.first?.headerFields[.authorization] == "Bearer token-b")
    }
}
