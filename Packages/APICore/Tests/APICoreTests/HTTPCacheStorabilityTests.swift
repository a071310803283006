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

/// What the HTTP cache may store (RFC 9111 §3, §5.2.2.3) and how `Vary` compares requests (§4.1), against a
/// real server on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct HTTPCacheStorabilityTests {
    static let body = #"{"id":9,"name":"nine"}"#

    @Test(arguments: [299, 499, 599, 400])
    func anyFinalStatusWithExplicitFreshnessIsStoredAndStillReachesTheCallerAsItsError(_ status: Int) async throws {
        try await withTestServer({ router in
            router.get("odd") { _, _ in reply(HTTPResponse.Status(code: status), Self.body, [.cacheControl: "max-age=300"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            for _ in 0..<2 {
                do throws(APIError) {
                    let response = try await fixture.client.send(.item("/odd"))
                    #expect((200..<300).contains(status), "a \(status) reached the caller as a value: \(response.status)")
                } catch {
                    #expect(error == APIError(status: status, body: Data(Self.body.utf8)), "a typed error, not \(error)")
                }
            }
            #expect(server.count("/odd") == 1, "the second answer came from the cache")
        }
    }

    /// The suite's `heuristic-599-cached`: a final status the cache does not know, marked `public`, with a
    /// `Last-Modified` ten days before its `Date`, is fresh for a heuristic day (a tenth of its age, capped);
    /// without `public` it gets no heuristic and is fetched each time (RFC 9111 §4.2.2).
    @Test func aPublicResponseOfAnyStatusGetsAHeuristicLifetimeFromLastModified() async throws {
        let date = "Thu, 01 Jan 2026 00:00:00 GMT"
        let modified = "Mon, 22 Dec 2025 00:00:00 GMT"
        try await withTestServer({ router in
            router.get("public") { _, _ in
                reply(HTTPResponse.Status(code: 599), Self.body, [.cacheControl: "public", .lastModified: modified, .date: date])
            }
            router.get("plain") { _, _ in reply(HTTPResponse.Status(code: 599), Self.body, [.lastModified: modified, .date: date]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            fixture.clock.set(to: try #require(HTTPDate.parse(date)))
            for _ in 0..<2 {
                _ = try? await fixture.client.send(.item("/public"))
                _ = try? await fixture.client.send(.item("/plain"))
            }
            #expect(server.count("/public") == 1, "reused within its heuristic lifetime")
            #expect(server.count("/plain") == 2, "no heuristic for an unknown status without public")
            fixture.clock.advance(by: 86_401)
            _ = try? await fixture.client.send(.item("/public"))
            #expect(server.count("/public") == 2, "past a day (a tenth of ten days), fetched again")
        }
    }

    @Test func mustUnderstandStoresAnUnderstoodStatusDespiteNoStoreAndNeverAnUnknownOne() async throws {
        try await withTestServer({ router in
            router.get("understood") { _, _ in
                reply(.ok, Self.body, [.cacheControl: "max-age=300, no-store, must-understand"])
            }
            router.get("unknown") { _, _ in
                reply(HTTPResponse.Status(code: 299), Self.body, [.cacheControl: "max-age=300, must-understand"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            for _ in 0..<2 {
                _ = try await fixture.client.send(.item("/understood"))
                _ = try await fixture.client.send(.item("/unknown"))
            }
            #expect(server.count("/understood") == 1, "must-understand with a status the cache knows overrides no-store")
            #expect(server.count("/unknown") == 2, "must-understand with a status the cache does not know: never stored")
        }
    }

    @Test func aNoStoreResponseWithoutMustUnderstandIsStillNeverStored() async throws {
        try await withTestServer({ router in
            router.get("odd") { _, _ in reply(HTTPResponse.Status(code: 599), Self.body, [.cacheControl: "max-age=300, no-store"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            for _ in 0..<2 { _ = try? await fixture.client.send(.item("/odd")) }
            #expect(server.count("/odd") == 2)
        }
    }

    @Test func varyComparesNegotiationFieldsWhateverTheirOrderCaseAndWhitespace() async throws {
        try await withTestServer({ router in
            router.get("greeting") { _, _ in
                reply(.ok, Self.body, [.cacheControl: "max-age=300", .vary: "Accept-Language"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            func greeting(_ language: String) -> APIRequest<Item> {
                APIRequest<Item>(path: "/greeting", headerFields: [.acceptLanguage: language])
            }
            #expect(try await fixture.client.send(greeting("en-US, fr;q=0.5")).source == .network)
            #expect(try await fixture.client.send(greeting("fr; q=0.5,EN-us")).source == .cache)
            #expect(try await fixture.client.send(greeting("en-US,de;q=0.5")).source == .network, "another language")
            #expect(server.count("/greeting") == 2)
        }
    }

    /// The suite's `vary-invalidate` and `vary-cache-key`: each variant of a URL is kept, selected by its own
    /// request values, so going back to the first one hits; at most eight are kept, the oldest going first;
    /// uplifted, they come back from disk after a relaunch; an unsafe request removes them all.
    @Test func severalVariantsOfOneURLAreKeptEachFoundByItsOwnValues() async throws {
        try await withTestServer({ router in
            router.get("foo") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300", .vary: "Foo"]) }
            router.post("foo") { _, _ in reply(.ok, "{}") }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let foo = HTTPField.Name("Foo")!
            func get(_ value: String) -> APIRequest<Item> {
                APIRequest<Item>(
                    path: "/foo", headerFields: [foo: value], cacheable: Cacheable(key: "foo", timeout: nil, isUplifted: true))
            }
            #expect(try await fixture.client.send(get("1")).source == .network)
            #expect(try await fixture.client.send(get("2")).source == .network)
            #expect(try await fixture.client.send(get("1")).source == .cache, "back to the first variant")
            #expect(try await fixture.client.send(get("2")).source == .cache)
            // Nine variants: the first (the least recent) is gone, the other eight are kept.
            for value in 3...9 { #expect(try await fixture.client.send(get("\(value)")).source == .network) }
            #expect(try await fixture.client.send(get("3")).source == .cache)
            #expect(server.count("/foo") == 9)
            // After a relaunch, from disk.
            let relaunched = try ClientFixture(baseURL: server.baseURL, directory: fixture.directory)
            relaunched.clock.set(to: fixture.clock.now())
            #expect(try await relaunched.client.send(get("5"), policy: .returnCacheDataDontFetch).value.id == 9)
            #expect(try await relaunched.client.send(get("9"), policy: .returnCacheDataDontFetch).value.id == 9)
            // A POST to the URL removes every variant.
            _ = try await fixture.client.send(APIRequest<Data>(method: .post, path: "/foo", body: Data("{}".utf8)))
            for value in ["2", "9"] {
                await #expect(throws: APIError.notCached()) {
                    try await fixture.client.send(get(value), policy: .returnCacheDataDontFetch)
                }
            }
        }
    }

    /// The suite's `vary-normalise-combine`: any varied field is compared as a list whose elements' surrounding
    /// whitespace does not count, one line or several; its elements' own text still does.
    @Test func varyOnAnyFieldIgnoresTheWhitespaceAroundItsListElements() async throws {
        try await withTestServer({ router in
            router.get("foo") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300", .vary: "Foo"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let foo = HTTPField.Name("Foo")!
            func get(_ fields: HTTPFields) -> APIRequest<Item> { APIRequest<Item>(path: "/foo", headerFields: fields) }
            #expect(try await fixture.client.send(get([foo: "1,2"])).source == .network)
            #expect(try await fixture.client.send(get([foo: " 1,  2 "])).source == .cache)
            var lines = HTTPFields()
            lines.append(HTTPField(name: foo, value: "1"))
            lines.append(HTTPField(name: foo, value: "2"))
            #expect(try await fixture.client.send(get(lines)).source == .cache, "two lines are one list")
            #expect(try await fixture.client.send(get([foo: "1,3"])).source == .network, "another value")
            #expect(try await fixture.client.send(get([foo: "1 2"])).source == .network, "whitespace inside an element counts")
        }
    }
}
