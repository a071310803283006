import APICore
import APICoreREST
import APICoreTesting
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// A cached response that no longer decodes is dropped and fetched again; its own dropping does not keep the new one
/// out of the cache.
@Suite(.timeLimit(.minutes(10))) struct UndecodableEntryTests {
    @Test func theResponseFetchedAfterAnUndecodableEntryIsStored() async throws {
        let transport = RecordingTransport()
        transport.stub(.get, "/item", status: 200, headerFields: [.cacheControl: "max-age=60"], body: Data(#"{"unexpected":true}"#.utf8))
        transport.stub(.get, "/item", status: 200, headerFields: [.cacheControl: "max-age=60"], body: Data(#"{"id":1,"name":"one"}"#.utf8))
        let fixture = try ClientFixture(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
        defer { fixture.directory.remove() }
        _ = try await fixture.client.send(APIRequest<Data>(path: "/item"))
        let fetched = try await fixture.client.send(.item("/item"))
        #expect(fetched.source == .network && fetched.value == Item(id: 1, name: "one"))
        let again = try await fixture.client.send(.item("/item"))
        #expect(again.source == .cache, "the response fetched after the undecodable one was not stored")
        #expect(transport.requests.count == 2)
    }
}
