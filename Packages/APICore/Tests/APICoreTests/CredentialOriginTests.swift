import APICore
import APICoreREST
import APICoreTestServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The session's token goes only to the client's own origin (security review two, finding 1), attacked
/// with a second local server that records what it receives: the attacker's host.
@Suite(.timeLimit(.minutes(10))) struct CredentialOriginTests {
    @Test func anAbsoluteURLOnAnotherOriginIsRefusedBeforeAnythingLeaves() async throws {
        try await withTestServer({ router in
            router.get("p.png") { _, _ in reply(.ok, "png") }
        }) { attacker in
            try await withTestServer({ router in
                router.get("me") { _, _ in reply(.ok, "{}") }
            }) { api in
                let fixture = try ClientFixture(baseURL: api.baseURL)
                let stolen = attacker.baseURL.appendingPathComponent("p.png").absoluteString
                await #expect(throws: APIError.self) { try await fixture.client.send(APIRequest<Data>(path: stolen)) }
                #expect(attacker.requests.isEmpty, "the other origin received \(attacker.requests.map(\.path))")
                // Another port of the same host is another origin too (the test servers share 127.0.0.1).
                #expect(URLOrigin(attacker.baseURL) != URLOrigin(api.baseURL))
            }
        }
    }

    @Test func anOptedInRequestForAnotherOriginCarriesNoTokenAndItsUnauthorizedEndsNoSession() async throws {
        try await withTestServer({ router in
            router.get("p.png") { _, _ in reply(.unauthorized, "no") }
        }) { attacker in
            try await withTestServer({ router in
                router.get("me") { _, _ in reply(.unauthorized, "expired") }
                router.get("own.png") { _, _ in reply(.ok, "png") }
            }) { api in
                let fixture = try ClientFixture(baseURL: api.baseURL)
                var events = fixture.client.authEvents.stream().makeAsyncIterator()
                var request = APIRequest<Data>(path: attacker.baseURL.appendingPathComponent("p.png").absoluteString)
                request.allowsOtherOrigin = true
                // The caller's own credential for that host goes as it set it; the session's never does.
                request.headerFields[.authorization] = "Bearer cdn-key"
                await #expect(throws: APIError.self) { try await fixture.client.send(request) }
                let received = try #require(attacker.requests.first)
                #expect(received.headerFields[.authorization] == "Bearer cdn-key")
                // The same origin written absolutely still carries it (the positive control).
                _ = try await fixture.client.send(APIRequest<Data>(path: api.baseURL.appendingPathComponent("own.png").absoluteString))
                #expect(api.requests.first { $0.path == "/own.png" }?.headerFields[.authorization] == "Bearer token-a")
                // The first auth event is the own server's 401, not the other origin's.
                await #expect(throws: APIError.self) { try await fixture.client.send(APIRequest<Data>(path: "/me")) }
                let event = await events.next()
                #expect(event?.path == "/me")
            }
        }
    }

    @Test func anOriginIsComparedAsTheNetworkSeesIt() throws {
        let base = try #require(URL(string: "https://api.example.com"))
        for same in ["https://API.example.com:443/x", "https://api.example.com./x", "HTTPS://api.example.com/x"] {
            #expect(URLOrigin(same) == URLOrigin(base), "\(same)")
        }
        for other in ["http://api.example.com/x", "https://api.example.com:8443/x", "https://api.example.com.evil.example/x"] {
            #expect(URLOrigin(other) != URLOrigin(base), "\(other)")
        }
        #expect(URLOrigin.normalizedHost("Bücher.Example.") == "xn--bcher-kva.example")
        #expect(URLOrigin.normalizedHost("例え.テスト") == "xn--r8jz45g.xn--zckzah")
    }
}
