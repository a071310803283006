import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// A cursor-paginated list, for the refetch rules' first-page restart.
struct TransactionPageQuery: GraphQLQuery {
    static let document = """
        query TransactionPage($accountId: ID!, $after: String) {
          account(id: $accountId) { id balance transactions(after: $after) { items { id amount } hasMore nextCursor } }
        }
        """
    static let feature = "accounts"
    var accountId: String
    var after: String?
    var variables: [String: JSONValue] { ["accountId": .string(accountId), "after": after.map(JSONValue.string) ?? .null] }
}

/// Refetch rules do what they say: bound to the mutation's variables, lists from their first page,
/// background refetches cache-then-network, the least recently used queries forgotten first.
@Suite(.timeLimit(.minutes(10))) struct GraphQLRefetchTests {
    @Test func aBoundRuleRefetchesOnlyThePaidAccountsBalance() async throws {
        try await withBank { bank in
            let rule = MutationRefetchRule(
                mutation: "MakePayment",
                strategy: .refetch([RefetchQuery("AccountBalance", binding: ["id": "accountId"])]))
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, rules: [rule])
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try await fixture.client.fetch(BalanceQuery(id: "1002"))
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 50))
            #expect(payment.critical.map(\.variables) == [["id": "100"]])
            #expect(payment.critical.first?.outcome.success?.balance == 950)
            #expect(bank.count("AccountBalance") == 3, "1002's balance was refetched too")
        }
    }

    @Test func theUnboundFormStillRefetchesEveryQueryOfThatName() async throws {
        try await withBank { bank in
            let rule = MutationRefetchRule(mutation: "MakePayment", strategy: .refetch(["AccountBalance"]))
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, rules: [rule])
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try await fixture.client.fetch(BalanceQuery(id: "1002"))
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 50))
            #expect(Set(payment.critical.map(\.variables)) == [["id": "100"], ["id": "1002"]])
        }
    }

    @Test func aPaginatedListIsRefetchedFromItsFirstPageAndItsLaterPagesLeaveTheCache() async throws {
        let fixture = try GraphQLFixture(endpoint: URL(string: "http://127.0.0.1:1/graphql")!, transport: RecordingTransport())
        let client = fixture.client
        func page(_ account: String, _ after: String?, _ id: String) throws {
            try client.writeLocal(
                TransactionPageQuery(accountId: account, after: after),
                data: [
                    "__typename": "Query",
                    "account": [
                        "__typename": "Account", "id": .string(account), "balance": 1_000,
                        "transactions": [
                            "__typename": "TransactionPage", "hasMore": true, "nextCursor": "c",
                            "items": [["__typename": "Transaction", "id": .string(id), "amount": -1]],
                        ],
                    ],
                ])
        }
        for (account, after, id) in [("100", nil, "t1"), ("100", "c1", "t2"), ("100", "c2", "t3"), ("1002", "c9", "t9")]
            as [(String, String?, String)]
        {
            try page(account, after, id)
            // Remembered as the app would, by a read.
            _ = try await client.fetch(TransactionPageQuery(accountId: account, after: after), policy: .returnCacheDataDontFetch)
        }
        let target = RefetchQuery("TransactionPage", binding: ["accountId": "accountId"], cursor: "after")
        let selected = client.queries(for: [target], mutationVariables: ["accountId": "100", "amount": 5])
        #expect(selected.map(\.variables) == [["accountId": "100", "after": nil]])
        // 100's later pages are forgotten and gone from the cache; its first page and 1002's are not.
        let remembered = Set(client.activeQueries(named: ["TransactionPage"]).map(\.variables))
        #expect(remembered == [["accountId": "100", "after": nil], ["accountId": "1002", "after": "c9"]])
        await #expect(throws: APIError.notCached()) {
            try await client.fetch(TransactionPageQuery(accountId: "100", after: "c1"), policy: .returnCacheDataDontFetch)
        }
        #expect(
            try await client.fetch(TransactionPageQuery(accountId: "100", after: nil), policy: .returnCacheDataDontFetch)
                .source == .cache)
        // The account the pages hang from keeps everything else: another query reading it still hits.
        #expect(try await client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 1_000)
        // Only later pages known (1002): the list restarts from a first page built from them.
        let restarted = client.queries(for: [target], mutationVariables: ["accountId": "1002"])
        #expect(restarted.map(\.variables) == [["accountId": "1002", "after": nil]])
        #expect(!client.activeQueries(named: ["TransactionPage"]).contains { $0.variables["accountId"] == "1002" })
    }

    @Test func backgroundRefetchesRunCacheThenNetwork() async throws {
        try await withBank { bank in
            let rule = MutationRefetchRule(
                mutation: "MakePayment",
                strategy: .criticalAndBackground(critical: [], background: ["AccountBalance"]))
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, rules: [rule])
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 250))
            let reports = await payment.background?.value ?? []
            // The cache answered first (the payment's own result, already written), then the network.
            #expect(reports.first?.cached?.balance == 750)
            #expect(reports.first?.cached?.source == .cache)
            #expect(reports.first?.outcome.success?.source == .network)
            #expect(bank.count("AccountBalance") == 2)
        }
    }

    @Test func theLeastRecentlyUsedQueryIsForgottenFirst() async throws {
        let fixture = try GraphQLFixture(endpoint: URL(string: "http://127.0.0.1:1/graphql")!, transport: RecordingTransport())
        let client = fixture.client
        for id in 0..<GraphQLClient.rememberedPerName {
            _ = try? await client.fetch(BalanceQuery(id: "\(id)"), policy: .returnCacheDataDontFetch)
        }
        _ = try? await client.fetch(BalanceQuery(id: "0"), policy: .returnCacheDataDontFetch)
        _ = try? await client.fetch(BalanceQuery(id: "new"), policy: .returnCacheDataDontFetch)
        let remembered = Set(client.activeQueries(named: ["AccountBalance"]).compactMap { $0.variables["id"]?.stringValue })
        #expect(remembered.count == GraphQLClient.rememberedPerName)
        #expect(remembered.contains("0") && remembered.contains("new"))
        #expect(
            !remembered.contains("1"),
            "the least recently used (1) should have gone, not \(Set((0..<20).map(String.init)).subtracting(remembered))")
    }
}
