import APICore
import APICoreREST
import APICoreTestServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// What a reload, a force reload and an unsafe method do to stored responses (RFC 8246 §2, RFC 9111 §4.4),
/// and an `Expires` whose names are in the wrong case (RFC 9110 §5.6.7), against a real server on 127.0.0.1.
@Suite(.timeLimit(.minutes(3))) struct HTTPCacheReloadTests {
    static let body = #"{"id":3,"name":"three"}"#

    static func get(_ path: String, _ fields: HTTPFields = [:]) -> APIRequest<Item> {
        APIRequest<Item>(path: path, headerFields: fields)
    }

    @Test func aFreshImmutableResponseIsReusedOnAReloadAndRevalidatedOnAForceReload() async throws {
        try await withTestServer({ router in
            router.get("immutable") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300, immutable", .eTag: "\"i1\""]) }
            router.get("mutable") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300", .eTag: "\"m1\""]) }
        }) { server in
            let client = try ClientFixture(baseURL: server.baseURL).client
            let reload: HTTPFields = [.cacheControl: "max-age=0"]
            for path in ["/immutable", "/mutable"] { _ = try await client.send(Self.get(path)) }
            #expect(try await client.send(Self.get("/immutable", reload)).source == .cache, "a reload reuses a fresh immutable response")
            #expect(try await client.send(Self.get("/mutable", reload)).source == .network, "a reload revalidates any other")
            #expect(server.count("/immutable") == 1 && server.count("/mutable") == 2)
            _ = try await client.send(Self.get("/immutable", [.cacheControl: "no-cache"]))
            #expect(server.count("/immutable") == 2, "a force reload (no-cache) revalidates even an immutable response")
        }
    }

    @Test func anUnsafeMethodInvalidatesAResponseThatVaries() async throws {
        try await withTestServer({ router in
            router.get("varied") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300", .vary: "Accept-Language"]) }
            router.post("varied") { _, _ in reply(.ok, "{}") }
        }) { server in
            let client = try ClientFixture(baseURL: server.baseURL).client
            let french: HTTPFields = [.acceptLanguage: "fr"]
            _ = try await client.send(Self.get("/varied", french))
            #expect(try await client.send(Self.get("/varied", french)).source == .cache)
            _ = try await client.send(APIRequest<Data>(method: .post, path: "/varied", headerFields: french, body: Data("{}".utf8)))
            #expect(try await client.send(Self.get("/varied", french)).source == .network, "the POST invalidated it")
            #expect(server.count("/varied") == 3)
        }
    }

    @Test(arguments: ["thu, 01 jan 2099 00:00:00 gmt", "Thu, 01 JAN 2099 00:00:00 GMT", "THU, 01 Jan 2099 00:00:00 GMT"])
    func anExpiresWithNamesInTheWrongCaseIsInvalidSoAlreadyExpired(_ expires: String) async throws {
        try await withTestServer({ router in
            router.get("dated") { _, _ in reply(.ok, Self.body, [.expires: expires]) }
            router.get("valid") { _, _ in reply(.ok, Self.body, [.expires: "Thu, 01 Jan 2099 00:00:00 GMT"]) }
        }) { server in
            let client = try ClientFixture(baseURL: server.baseURL).client
            for _ in 0..<2 {
                _ = try await client.send(Self.get("/dated"))
                _ = try await client.send(Self.get("/valid"))
            }
            #expect(server.count("/dated") == 2, "\(expires) was taken as a date")
            #expect(server.count("/valid") == 1, "the positive control")
        }
    }
}
