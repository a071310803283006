import APICore
import APICoreREST
import APICoreTesting
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import Testing

/// What the client promises to log, it logs, with keys redacted.
@Suite(.timeLimit(.minutes(10))) struct RESTLoggingTests {
    @Test func aCachedResponseThatNoLongerDecodesIsDroppedAndLoggedRedacted() async throws {
        let transport = RecordingTransport()
        transport.stub(
            .get, "/users/alice@example.com/profile", status: 200,
            headerFields: [.cacheControl: "max-age=60"], body: Data(#"{"unexpected":true}"#.utf8))
        let fixture = try ClientFixture(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
        // Stored as raw bytes, then read as an Item: the cached body no longer decodes.
        _ = try await fixture.client.send(APIRequest<Data>(path: "/users/alice@example.com/profile"))
        await #expect(throws: APIError.self) { try await fixture.client.send(.item("/users/alice@example.com/profile")) }
        let line = try #require(
            fixture.logs.lines(withMessage: "Dropped a cached response that no longer decodes").first,
            "no log line among \(fixture.logs.lines.map(\.message))")
        #expect(line.level == .warning)
        for raw in ["alice@example.com", "user-a", "token-a", "/users/"] {
            #expect(!line.text.contains(raw), "the log line holds \(raw): \(line.text)")
        }
        #expect(transport.requests.count == 2, "the dropped entry was fetched again")
    }
}
