import APICoreTestServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import APICore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A redirect never carries the user's credentials away (security review, finding 3): a server that
/// answers with a `Location` on another origin receives no `Authorization` and no `Cookie`.
@Suite(.timeLimit(.minutes(10))) struct RedirectCredentialTests {
    static let secret: HTTPFields = [.authorization: "Bearer secret-token", .cookie: "session=secret-cookie"]

    @Test func aRedirectToAnotherOriginArrivesWithoutTheCredentials() async throws {
        try await withTestServer({ router in
            router.get("landing") { _, _ in reply(.ok, "{}") }
        }) { elsewhere in
            let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
            try await withTestServer({ router in
                router.get("start") { _, _ in reply(.found, "", [.location: target]) }
                router.get("same") { _, _ in reply(.found, "", [.location: "/landing"]) }
                router.get("landing") { _, _ in reply(.ok, "{}") }
            }) { origin in
                let transport = URLSessionTransport()
                let response = try await transport.send(
                    TransportRequest(method: .get, url: origin.baseURL.appendingPathComponent("start"), headerFields: Self.secret))
                #expect(response.status == 200)
                let received = try #require(elsewhere.requests.first { $0.path == "/landing" })
                #expect(received.headerFields[.authorization] == nil)
                #expect(received.headerFields[.cookie] == nil)
                // The positive control: on the same origin the redirect keeps them.
                _ = try await transport.send(
                    TransportRequest(method: .get, url: origin.baseURL.appendingPathComponent("same"), headerFields: Self.secret))
                let same = try #require(origin.requests.first { $0.path == "/landing" })
                #expect(same.headerFields[.authorization] == "Bearer secret-token")
            }
        }
    }

    @Test func theRuleStripsOnAnotherHostOrPortAndRefusesADowngrade() throws {
        let original = try #require(URL(string: "https://api.example.com/v1/me"))
        func redirect(_ text: String) throws -> URLRequest {
            var request = URLRequest(url: try #require(URL(string: text)))
            request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
            request.setValue("s=1", forHTTPHeaderField: "Cookie")
            request.setValue("x", forHTTPHeaderField: "Proxy-Authorization")
            return request
        }
        let same = RedirectRule.follow(try redirect("https://API.example.com:443/v2/me"), from: original)
        #expect(same?.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        for other in ["https://evil.example.com/me", "https://api.example.com:8443/me"] {
            let followed = RedirectRule.follow(try redirect(other), from: original)
            #expect(followed?.url?.absoluteString == other)
            // The attacker's list, not the product's constant: a field dropped from the product's list fails here.
            for field in ["Authorization", "Cookie", "Proxy-Authorization"] {
                #expect(followed?.value(forHTTPHeaderField: field) == nil, "\(other) \(field)")
            }
        }
        #expect(RedirectRule.follow(try redirect("http://api.example.com/v1/me"), from: original) == nil)
    }

    @Test func aRedirectOfARequestWithABodyStopsAtAnotherOrigin() throws {
        let original = try #require(URL(string: "https://api.example.com/auth/login"))
        var post = URLRequest(url: try #require(URL(string: "https://evil.example.com/auth/login")))
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"password":"hunter2"}"#.utf8)
        #expect(RedirectRule.follow(post, from: original) == nil)
        // Foundation may show the redirected request without its body and send it all the same: the method refuses.
        var shown = post
        shown.httpBody = nil
        #expect(RedirectRule.follow(shown, from: original) == nil)
        // A GET that carries a body (rare, allowed) stops too; one without goes on, without credentials.
        var getWithBody = post
        getWithBody.httpMethod = "GET"
        #expect(RedirectRule.follow(getWithBody, from: original) == nil)
        getWithBody.httpBody = nil
        #expect(RedirectRule.follow(getWithBody, from: original) != nil)
        // On the same origin the body may follow.
        var same = post
        same.url = URL(string: "https://api.example.com/auth/login2")
        #expect(RedirectRule.follow(same, from: original) != nil)
    }

    /// Over the network: a login's 307 to another origin is returned as is, and the other origin
    /// receives nothing, the password least of all.
    @Test func aLoginsTemporaryRedirectToAnotherOriginSendsItNothing() async throws {
        try await withTestServer({ router in
            router.post("collect") { _, _ in reply(.ok, "{}") }
        }) { elsewhere in
            let target = elsewhere.baseURL.appendingPathComponent("collect").absoluteString
            try await withTestServer({ router in
                router.post("login") { _, _ in reply(.temporaryRedirect, "", [.location: target]) }
            }) { origin in
                let response = try await URLSessionTransport().send(
                    TransportRequest(
                        method: .post, url: origin.baseURL.appendingPathComponent("login"),
                        headerFields: [.contentType: "application/json"], body: Data(#"{"password":"hunter2"}"#.utf8)))
                #expect(response.status == 307)
                #expect(elsewhere.requests.isEmpty, "the other origin received \(elsewhere.requests.map(\.path))")
            }
        }
    }
}
