import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// A canned response without `__typename` is stored but never read back: the client says so once,
/// names the path, and a cache-only read names what it lacked. `GraphQLStub` adds them.
@Suite(.timeLimit(.minutes(10))) struct TypenameTests {
    func fixture(_ body: Data, logs: LogRecorder? = nil) throws -> (GraphQLFixture, RecordingTransport) {
        let transport = RecordingTransport()
        transport.stub(.post, "/graphql", status: 200, body: body)
        return (
            try GraphQLFixture(
                endpoint: try #require(URL(string: "http://bank.test/graphql")), transport: transport,
                logger: logs?.logger()), transport
        )
    }

    @Test func aResponseWithoutTypenamesIsWarnedAboutOnceAndTheMissNamesThePath() async throws {
        let logs = LogRecorder()
        let (fixture, transport) = try fixture(
            JSONValue.object(["data": ["account": ["id": "100", "balance": 5]]]).serialized(), logs: logs)
        _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
        _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
        #expect(transport.requests.count == 2, "never read back from the cache")
        let warnings = logs.lines.filter { $0.message.contains("__typename") }
        #expect(warnings.count == 1, "warned once: \(logs.lines.map(\.text))")
        #expect(warnings.first?.metadata["path"] == "QUERY_ROOT.__typename")
        do {
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            Issue.record("a cache-only read succeeded")
        } catch {
            guard case .notCached(let missing) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(missing.path == "QUERY_ROOT.__typename", "the miss names the path: \(missing)")
        }
    }

    @Test func theStubAddsTheTypenamesAndTheResponseIsServedFromTheCache() async throws {
        let body = GraphQLStub.body(["account": ["id": "100", "balance": 5]], typenames: ["account": "Account"])
        let (fixture, transport) = try fixture(body)
        _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
        let cached = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
        #expect(cached.balance == 5 && transport.requests.count == 1)
        #expect(try fixture.client.cache.store.record(forKey: "Account:100") != nil, "keyed by the kit's provider")
    }
}
