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
@Suite(.timeLimit(.minutes(3))) struct HTTPCacheStorabilityTests {
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
}
