import APICore
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// A kit scopes a REST entry to an account (and tags) without knowing the user: the client adds the
/// signed-in user, so clearing the account reaches it and another user never reads it.
@Suite(.timeLimit(.minutes(10))) struct RESTScopeTests {
    @Test func anAccountAddedByTheKitIsClearedWithItsAccountAndKeepsItsUser() async throws {
        let transport = RecordingTransport()
        transport.stub(
            .get, "/accounts/100/statement", status: 200, headerFields: [.cacheControl: "max-age=600"],
            body: Data(#"{"id":100,"name":"statement 100"}"#.utf8))
        transport.stub(
            .get, "/accounts/1002/statement", status: 200, headerFields: [.cacheControl: "max-age=600"],
            body: Data(#"{"id":1002,"name":"statement 1002"}"#.utf8))
        let fixture = try ClientFixture(baseURL: try #require(URL(string: "https://bank.test")), transport: transport)
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
        unified.register(fixture.client.cacheParticipant)
        func statement(_ account: String) -> APIRequest<Item> {
            .item(
                "/accounts/\(account)/statement",
                cacheable: Cacheable(key: "statement.\(account)", accountId: account, tags: ["statements"]))
        }
        _ = try await fixture.client.send(statement("100"))
        _ = try await fixture.client.send(statement("1002"))
        let entries = await unified.exportCacheContents()
        #expect(entries.count == 2 && entries.allSatisfy { $0.user != nil && $0.account != nil }, "user and account both kept")

        await unified.clearCache(forAccountId: "100")
        await #expect(throws: APIError.notCached()) {
            try await fixture.client.send(statement("100"), policy: .returnCacheDataDontFetch)
        }
        #expect(try await fixture.client.send(statement("1002"), policy: .returnCacheDataDontFetch).value.id == 1002)

        fixture.tokens.set(Credentials(accessToken: "other", userId: "someone-else"))
        await #expect(throws: APIError.notCached(), "another user never reads it") {
            try await fixture.client.send(statement("1002"), policy: .returnCacheDataDontFetch)
        }
    }
}
