import APICore
import APICoreREST
import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The HTTP cache against a real server on 127.0.0.1: validation, freshness, Vary, invalidation.
@Suite(.timeLimit(.minutes(10))) struct RESTCachingTests {
    @Test func eTagRoundTripSendsIfNoneMatchAndReturnsTheCachedBodyOn304() async throws {
        try await withTestServer({ router in
            router.get("etag") { request, _ in
                if request.headers[.ifNoneMatch] == "\"funnels:v1\"" {
                    return reply(.notModified, "", [.eTag: "\"funnels:v1\"", .cacheControl: "max-age=60"])
                }
                return reply(.ok, #"{"id":1,"name":"one"}"#, [.eTag: "\"funnels:v1\"", .cacheControl: "max-age=60"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let first = try await fixture.client.send(.item("/etag"))
            #expect(first.source == .network)
            fixture.clock.advance(by: 61)
            let second = try await fixture.client.send(.item("/etag"))
            #expect(second.source == .revalidated)
            #expect(second.value == Item(id: 1, name: "one"))
            #expect(server.requests.last?.headerFields[.ifNoneMatch] == "\"funnels:v1\"")
            // The 304 refreshed the entry: fresh again for another 60 s, with no request.
            let third = try await fixture.client.send(.item("/etag"))
            #expect(third.source == .cache)
            #expect(server.count("/etag") == 2)
            let counts = fixture.counts()
            #expect(counts.revalidations == 1)
            #expect(counts.requestsSaved == 1)
            #expect(counts.bytesSaved == 2 * Data(#"{"id":1,"name":"one"}"#.utf8).count)
        }
    }

    @Test func lastModifiedRoundTripSendsIfModifiedSince() async throws {
        let lastModified = "Mon, 13 Jan 2026 14:24:29 GMT"
        try await withTestServer({ router in
            router.get("dated") { request, _ in
                if request.headers[.ifModifiedSince] == lastModified {
                    return reply(.notModified, "", [.lastModified: lastModified])
                }
                return reply(.ok, #"{"id":2,"name":"two"}"#, [.lastModified: lastModified, .cacheControl: "no-cache"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.client.send(.item("/dated"))
            // no-cache: stored, but revalidated on every use.
            let second = try await fixture.client.send(.item("/dated"))
            #expect(second.source == .revalidated)
            #expect(second.value.id == 2)
            #expect(server.requests.last?.headerFields[.ifModifiedSince] == lastModified)
            #expect(server.count("/dated") == 2)
        }
    }

    @Test func maxAgeIsFreshUntilTheClockPassesIt() async throws {
        try await withTestServer({ router in
            router.get("fresh") { _, _ in reply(.ok, #"{"id":3,"name":"three"}"#, [.cacheControl: "private, max-age=300"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.client.send(.item("/fresh"))
            fixture.clock.advance(by: 299)
            #expect(try await fixture.client.send(.item("/fresh")).source == .cache)
            fixture.clock.advance(by: 2)
            let stale = try await fixture.client.send(.item("/fresh"))
            #expect(stale.source == .network)
            // No validators: a plain request, not a conditional one.
            #expect(server.requests.last?.headerFields[.ifNoneMatch] == nil)
            #expect(server.count("/fresh") == 2)
        }
    }

    @Test func noStoreResponsesAreNeverWritten() async throws {
        try await withTestServer({ router in
            router.get("secret") { _, _ in reply(.ok, #"{"id":4,"name":"four"}"#, [.cacheControl: "no-store", .eTag: "\"x\""]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.client.send(.item("/secret", cacheable: Cacheable(key: "secret", timeout: .seconds(300))))
            _ = try await fixture.client.send(.item("/secret"))
            #expect(server.count("/secret") == 2)
            #expect(server.requests.last?.headerFields[.ifNoneMatch] == nil)
            let entries = try await fixture.client.cacheParticipant.exportEntries()
            #expect(entries.isEmpty)
        }
    }

    @Test func mustRevalidateForbidsStaleWhenOfflineButPlainMaxAgeServesItMarkedStale() async throws {
        let server = try await TestServer.start { router in
            router.get("strict") { _, _ in reply(.ok, #"{"id":5,"name":"strict"}"#, [.cacheControl: "max-age=60, must-revalidate"]) }
            router.get("lenient") { _, _ in reply(.ok, #"{"id":6,"name":"lenient"}"#, [.cacheControl: "max-age=60"]) }
        }
        let fixture = try ClientFixture(baseURL: server.baseURL)
        _ = try await fixture.client.send(.item("/strict"))
        _ = try await fixture.client.send(.item("/lenient"))
        await server.stop()
        fixture.clock.advance(by: 120)
        await #expect {
            try await fixture.client.send(.item("/strict"))
        } throws: { error in
            guard case .transport = error as? APIError else { return false }
            return true
        }
        let lenient = try await fixture.client.send(.item("/lenient"))
        #expect(lenient.isStale)
        #expect(lenient.value.id == 6)
        // Network-only never falls back to the cache.
        await #expect(throws: APIError.self) { try await fixture.client.send(.item("/lenient"), policy: .fetchIgnoringCacheData) }
    }

    @Test func varyKeepsVariantsApart() async throws {
        try await withTestServer({ router in
            router.get("greeting") { request, _ in
                let language = request.headers[.acceptLanguage] ?? "en"
                return reply(.ok, #"{"id":7,"name":"\#(language)"}"#, [.cacheControl: "max-age=300", .vary: "Accept-Language"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            func greeting(_ language: String) -> APIRequest<Item> {
                APIRequest<Item>(path: "/greeting", headerFields: [.acceptLanguage: language])
            }
            #expect(try await fixture.client.send(greeting("en")).value.name == "en")
            #expect(try await fixture.client.send(greeting("en")).source == .cache)
            let german = try await fixture.client.send(greeting("de"))
            #expect(german.source == .network)
            #expect(german.value.name == "de")
            #expect(server.count("/greeting") == 2)
        }
    }

    @Test func queryStringsAreDistinctEntries() async throws {
        try await withTestServer({ router in
            router.get("items") { request, _ in
                let page = request.uri.queryParameters["page"].map(String.init) ?? "0"
                return reply(.ok, #"{"id":\#(page),"name":"page"}"#, [.cacheControl: "max-age=300"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let page1 = APIRequest<Item>.item("/items", query: [URLQueryItem(name: "page", value: "1")])
            let page2 = APIRequest<Item>.item("/items", query: [URLQueryItem(name: "page", value: "2")])
            #expect(try await fixture.client.send(page1).value.id == 1)
            #expect(try await fixture.client.send(page2).value.id == 2)
            #expect(try await fixture.client.send(page1).source == .cache)
            #expect(try await fixture.client.send(page2).value.id == 2)
            #expect(server.count("/items") == 2)
        }
    }

    @Test func successfulPostInvalidatesItsURLAndSameOriginLocation() async throws {
        try await withTestServer({ router in
            router.get("orders") { _, _ in reply(.ok, #"{"id":0,"name":"list"}"#, [.cacheControl: "max-age=300"]) }
            router.get("orders/7") { _, _ in reply(.ok, #"{"id":7,"name":"order"}"#, [.cacheControl: "max-age=300"]) }
            router.post("orders") { _, _ in reply(.created, #"{"id":7,"name":"order"}"#, [.location: "/orders/7"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.client.send(.item("/orders"))
            _ = try await fixture.client.send(.item("/orders/7"))
            let created = try await fixture.client.send(
                APIRequest<Item>(method: .post, path: "/orders", body: Data(#"{"name":"order"}"#.utf8)))
            #expect(created.status == 201)
            #expect(try await fixture.client.send(.item("/orders")).source == .network)
            #expect(try await fixture.client.send(.item("/orders/7")).source == .network)
            #expect(server.count("/orders") == 3)
            #expect(server.count("/orders/7") == 2)
        }
    }

    @Test func usersNeverSeeEachOthersEntries() async throws {
        try await withTestServer({ router in
            router.get("me") { request, _ in
                let user = request.headers[.authorization] == "Bearer token-a" ? "alice" : "bob"
                return reply(.ok, #"{"id":1,"name":"\#(user)"}"#, [.cacheControl: "private, max-age=300"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            #expect(try await fixture.client.send(.item("/me")).value.name == "alice")
            fixture.tokens.set(Credentials(accessToken: "token-b", userId: "user-b"))
            let bob = try await fixture.client.send(.item("/me"))
            #expect(bob.value.name == "bob")
            #expect(bob.source == .network)
            fixture.tokens.set(nil)
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.send(.item("/me"), policy: .returnCacheDataDontFetch)
            }
        }
    }

    @Test func upliftedEntriesSurviveANewClientAndLogoutRemovesTheirFiles() async throws {
        try await withTestServer({ router in
            router.get("profile") { _, _ in reply(.ok, #"{"id":9,"name":"profile-secret"}"#) }
        }) { server in
            let first = try ClientFixture(baseURL: server.baseURL)
            let request = APIRequest<Item>.item("/profile", cacheable: Cacheable(key: "profile", timeout: .seconds(900), isUplifted: true))
            _ = try await first.client.send(request)
            let relaunched = try ClientFixture(baseURL: server.baseURL, directory: first.directory)
            relaunched.clock.set(to: first.clock.now())
            #expect(try await relaunched.client.send(request, policy: .returnCacheDataDontFetch).value.id == 9)
            #expect(server.count("/profile") == 1)
            #expect(first.directory.anyFileContains("profile-secret"))
            let unified = UnifiedCacheManager(timeouts: relaunched.environment.timeouts)
            unified.register(relaunched.client.cacheParticipant)
            let report = await unified.clearAllCaches()
            #expect(report.isComplete)
            #expect(!first.directory.anyFileContains("profile-secret"))
            await #expect(throws: APIError.notCached()) { try await relaunched.client.send(request, policy: .returnCacheDataDontFetch) }
        }
    }

    @Test func declaredTimeoutWinsOverHeadersAndSettingsOverridesWinOverBoth() async throws {
        try await withTestServer({ router in
            router.get("balance") { _, _ in reply(.ok, #"{"id":1,"name":"balance"}"#, [.cacheControl: "max-age=3600"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let request = APIRequest<Item>.item("/balance", cacheable: Cacheable(key: "balance", timeout: .seconds(30)))
            _ = try await fixture.client.send(request)
            fixture.clock.advance(by: 31)
            #expect(try await fixture.client.send(request).source == .network)

            var settings = TimeoutSettings()
            settings.features["rest"] = .alwaysFetch
            let overridden = try ClientFixture(baseURL: server.baseURL, settings: settings)
            _ = try await overridden.client.send(request)
            #expect(try await overridden.client.send(request).source == .network)
        }
    }
}
