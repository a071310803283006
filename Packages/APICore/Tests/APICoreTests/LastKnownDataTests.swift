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

/// Every result says how old its data is; a screen that could not load shows its last known data.
@Suite(.timeLimit(.minutes(10))) struct LastKnownDataTests {
    @Test func aMustRevalidateResponseIsNeverServedStaleButIsTheLastKnownDataWithItsAge() async throws {
        let server = try await TestServer.start { router in
            router.get("catalog") { _, _ in
                reply(.ok, #"{"id":1,"name":"one"}"#, [.eTag: "\"v1\"", .cacheControl: "max-age=300, must-revalidate"])
            }
        }
        let fixture = try ClientFixture(baseURL: server.baseURL)
        let first = try await fixture.client.send(.item("/catalog"))
        #expect(first.freshness.state == .fresh && first.freshness.age == 0)
        fixture.clock.advance(by: 120)
        let hit = try await fixture.client.send(.item("/catalog"))
        #expect(hit.source == .cache && hit.freshness.state == .fresh && hit.freshness.age == 120)

        await server.stop()
        fixture.clock.advance(by: 3 * 3_600)
        await #expect(throws: APIError.self, "must-revalidate: never answered stale as an HTTP response") {
            _ = try await fixture.client.send(.item("/catalog"))
        }
        let last = try #require(await fixture.client.lastKnown(.item("/catalog")))
        #expect(last.value == Item(id: 1, name: "one"))
        #expect(last.freshness.state == .offline)
        #expect(last.freshness.age == 3 * 3_600 + 120)
        #expect(StaleIndicator.none.label(for: last.freshness) == "Offline · last updated 3 h ago")
        #expect(await fixture.client.lastKnown(.item("/never-fetched")) == nil)
    }

    @Test func aStaleResponseServedBecauseTheServerIsGoneIsLabelledOffline() async throws {
        let server = try await TestServer.start { router in
            router.get("profile") { _, _ in reply(.ok, #"{"id":2,"name":"two"}"#, [.cacheControl: "max-age=60"]) }
        }
        let fixture = try ClientFixture(baseURL: server.baseURL)
        _ = try await fixture.client.send(.item("/profile"))
        await server.stop()
        fixture.clock.advance(by: 600)
        let offline = try await fixture.client.send(.item("/profile"))
        #expect(offline.source == .cache && offline.freshness.state == .offline && offline.freshness.age == 600)
    }
}
