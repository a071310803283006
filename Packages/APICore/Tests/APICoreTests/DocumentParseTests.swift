import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// A GraphQL document is parsed once per operation type, never per call.
@Suite(.timeLimit(.minutes(10))) struct DocumentParseTests {
    struct CountedQuery: GraphQLQuery {
        static let document = "query Counted($id: ID!) { account(id: $id) { id balance } }"
        var id: String
        var variables: [String: JSONValue] { ["id": .string(id)] }
    }

    struct CountedMutation: GraphQLMutation {
        static let document = "mutation CountedPay($id: ID!) { makePayment(accountId: $id, amount: 1) { id } }"
        var id: String
        var variables: [String: JSONValue] { ["id": .string(id)] }
    }

    @Test func fiftyCallsWithDifferentVariablesAndPoliciesParseEachDocumentOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport = RecordingTransport()
        transport.stub(
            .post, "/graphql", status: 200,
            body: GraphQLStub.body(
                ["account": ["id": "1", "balance": 5], "makePayment": ["id": "p"]],
                typenames: ["account": "Account", "makePayment": "Payment"]))
        let client = GraphQLClient(
            configuration: .init(
                endpoint: try #require(URL(string: "https://api.example.com/graphql")), transport: transport,
                environment: CacheEnvironment(clock: ManualClock(), cachesDirectory: directory.url), retry: .none))
        #expect(ParsedOperations.shared.parseCount(for: CountedQuery.self) == 0)
        for index in 0..<50 {
            let policy: CachePolicy = index.isMultiple(of: 2) ? .fetchIgnoringCacheData : .default
            _ = try await client.fetch(CountedQuery(id: "\(index % 7)"), policy: policy)
        }
        for index in 0..<5 { _ = try await client.perform(CountedMutation(id: "\(index)")) }
        #expect(ParsedOperations.shared.parseCount(for: CountedQuery.self) == 1)
        #expect(ParsedOperations.shared.parseCount(for: CountedMutation.self) == 1)
    }
}
