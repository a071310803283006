import APICore
import APICoreREST
import APICoreTestServer
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// What a reload, a force reload and an unsafe method do to stored responses (RFC 8246 §2, RFC 9111 §4.4),
/// and an `Expires` whose names are in the wrong case (read anyway, as most caches do), against a real
/// server on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct HTTPCacheReloadTests {
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

    /// The suite's `method-POST`: a POST's fresh response whose `Content-Location` is its own URL answers a
    /// later GET of that URL from the cache; one without it does not (and invalidates what was stored).
    @Test func aPostsResponseForItsOwnURLIsReusedByALaterGet() async throws {
        try await withTestServer({ router in
            router.post("own") { request, _ in
                reply(.ok, Self.body, [.cacheControl: "max-age=300", .contentLocation: request.uri.path])
            }
            router.get("own") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300"]) }
            router.post("other") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300"]) }
            router.get("other") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300"]) }
        }) { server in
            let client = try ClientFixture(baseURL: server.baseURL).client
            for path in ["/own", "/other"] {
                _ = try await client.send(APIRequest<Item>(method: .post, path: path, body: Data("{}".utf8)))
            }
            #expect(try await client.send(Self.get("/own")).source == .cache, "the POST's answer, reused")
            #expect(try await client.send(Self.get("/other")).source == .network)
            #expect(server.requests.filter { $0.method == .get }.map(\.path) == ["/other"])
        }
    }

    /// The suite's `expires-casing` behaviours: names in the wrong case (`gMT`, `tHU`, `aug`) are read, so the
    /// response is fresh and reused; an `Expires` that is no date at all still means "already expired".
    @Test(arguments: ["thu, 01 jan 2099 00:00:00 gmt", "Thu, 01 JAN 2099 00:00:00 gMT", "tHU, 01 aug 2099 00:00:00 GMT"])
    func anExpiresWithNamesInTheWrongCaseIsReadAndReused(_ expires: String) async throws {
        try await withTestServer({ router in
            router.get("dated") { _, _ in reply(.ok, Self.body, [.expires: expires, .date: "tHU, 01 jan 2026 00:00:00 gmt"]) }
            router.get("invalid") { _, _ in reply(.ok, Self.body, [.expires: "thursday next week"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            fixture.clock.set(to: try #require(HTTPDate.parse("Thu, 01 Jan 2026 00:00:00 GMT")))
            for _ in 0..<2 {
                _ = try await fixture.client.send(Self.get("/dated"))
                _ = try await fixture.client.send(Self.get("/invalid"))
            }
            #expect(server.count("/dated") == 1, "\(expires) was not read as a date")
            #expect(server.count("/invalid") == 2, "an Expires that is no date is already expired")
        }
    }
}
