import APICore
import APICoreREST
import APICoreTestServer
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The conformance suite's behaviours of the last round, each through `RESTClient.forward`, the code path
/// `mib proxy` answers with (any status returned, the caller's fields as sent), against a real server on
/// 127.0.0.1. Each is named after the suite's test it answers.
@Suite(.timeLimit(.minutes(10))) struct HTTPCacheProxyPathTests {
    static let date = "Thu, 01 Jan 2026 00:00:00 GMT"

    /// A fixture whose clock stands at ``date``.
    static func fixture(_ server: TestServer) throws -> ClientFixture {
        let fixture = try ClientFixture(baseURL: server.baseURL)
        fixture.clock.set(to: try #require(HTTPDate.parse(date)))
        return fixture
    }

    @Test func headersStoreSetCookie() async throws {
        try await withTestServer({ router in
            router.get("c") { _, _ in reply(.ok, "x", [.cacheControl: "max-age=300", .setCookie: "a=b"]) }
        }) { server in
            let fixture = try Self.fixture(server)
            _ = try await fixture.get(server, "/c")
            let hit = try await fixture.get(server, "/c")
            #expect(hit.source == .cache && hit.headerFields[.setCookie] == "a=b")
            // The proxy's path keeps its responses in memory; that no file holds a cookie is tested where a
            // response is written to disk (CachedCredentialTests).
        }
    }

    @Test func varyInvalidateAndVaryNormaliseCombine() async throws {
        let foo = HTTPField.Name("Foo")!
        try await withTestServer({ router in
            router.get("v") { _, _ in reply(.ok, "x", [.cacheControl: "max-age=300", .vary: "Foo"]) }
        }) { server in
            let fixture = try Self.fixture(server)
            #expect(try await fixture.get(server, "/v", [foo: "1"]).source == .network)
            #expect(try await fixture.get(server, "/v", [foo: "2"]).source == .network)
            #expect(try await fixture.get(server, "/v", [foo: "1"]).source == .cache, "vary-invalidate: the first variant is kept")
            #expect(try await fixture.get(server, "/v", [foo: "3, 4"]).source == .network)
            #expect(try await fixture.get(server, "/v", [foo: "3,4 "]).source == .cache, "vary-normalise-combine")
        }
    }

    @Test func expiresCasingAndHeuristic599Cached() async throws {
        try await withTestServer({ router in
            router.get("e") { _, _ in reply(.ok, "x", [.expires: "tHU, 01 jAN 2099 00:00:00 gMT", .date: Self.date]) }
            router.get("h") { _, _ in
                reply(
                    HTTPResponse.Status(code: 599), "x",
                    [.cacheControl: "public", .lastModified: "Mon, 22 Dec 2025 00:00:00 GMT", .date: Self.date])
            }
        }) { server in
            let fixture = try Self.fixture(server)
            for path in ["/e", "/h", "/e", "/h"] { _ = try await fixture.get(server, path) }
            #expect(server.count("/e") == 1 && server.count("/h") == 1)
        }
    }

    @Test func methodPOST() async throws {
        try await withTestServer({ router in
            router.post("p") { request, _ in reply(.ok, "posted", [.cacheControl: "max-age=300", .contentLocation: request.uri.path]) }
            router.get("p") { _, _ in reply(.ok, "got", [.cacheControl: "max-age=300"]) }
        }) { server in
            let fixture = try Self.fixture(server)
            let url = server.baseURL.absoluteString + "/p"
            _ = try await fixture.client.forward(method: .post, url: url, headerFields: [:], body: Data("{}".utf8))
            let get = try await fixture.get(server, "/p")
            #expect(get.source == .cache && get.value == Data("posted".utf8))
        }
    }

    /// `vary-normalise-lang-select`: a response in German to `en, de` serves a request preferring German most,
    /// alone, whatever else it lists, and only such a request.
    @Test func varyNormaliseLangSelect() async throws {
        try await withTestServer({ router in
            router.get("l") { _, _ in reply(.ok, "Hallo", [.cacheControl: "max-age=300", .vary: "Accept-Language", .contentLanguage: "de"])
            }
        }) { server in
            let fixture = try Self.fixture(server)
            #expect(try await fixture.get(server, "/l", [.acceptLanguage: "en, de"]).source == .network)
            for preferring in ["fr;q=0.5, de;q=1.0", "DE", "de, en;q=0.999", "fr;q=0.2,de;q=0.9", "de;Q=1"] {
                #expect(try await fixture.get(server, "/l", [.acceptLanguage: preferring]).source == .cache, "\(preferring)")
            }
            // Not its language first, a tie, or a weight that is not one (RFC 9110 §12.4.2); `de, en` is the stored
            // request itself (the same list in another order).
            for other in [
                "en", "de;q=0.5, fr", "fr", "*", "de;q=0", "de, fr", "de;q=0.5, en;q=1.0x", "de, en;q=2", "de;q=1.5", "de;q=0.1234",
            ] {
                #expect(try await fixture.get(server, "/l", [.acceptLanguage: other]).source == .network, "\(other)")
            }
        }
    }
}
