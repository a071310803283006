import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import AccountsKit
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// The backend's GraphQL endpoint, driven by APICore's GraphQL client over real HTTP.
@Suite(.timeLimit(.minutes(10))) struct BankGraphQLContractTests {
    struct DashboardQuery: GraphQLQuery {
        static let document =
            "query Dashboard { dashboard { id totalBalance accounts { id name balance } recentTransactions { id amount } } }"
    }

    struct AccountQuery: GraphQLQuery {
        static let document = "query Account($id: ID!) { account(id: $id) { id name balance currency } }"
        var id: String
        var variables: [String: JSONValue] { ["id": .string(id)] }
    }

    struct TransactionsQuery: GraphQLQuery {
        static let document = """
            query Transactions($id: ID!, $after: String) {
              account(id: $id) { id transactions(first: 7, after: $after) { items { id amount date } hasMore nextCursor } }
            }
            """
        var id: String
        var after: String?
        var variables: [String: JSONValue] { ["id": .string(id), "after": after.map(JSONValue.string) ?? .null] }
    }

    func client(_ fixture: BackendFixture, email: String? = "alice@example.com", password: String = "Password1") async throws
        -> GraphQLClient
    {
        var credentials: Credentials?
        if let email {
            let response = try await fixture.send(.post, "/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
            let body = try JSONValue.parse(response.body)["data"]
            credentials = Credentials(
                accessToken: try #require(body?["token"]?.stringValue),
                userId: try #require(body?["user"]?["id"]?.stringValue))
        }
        let environment = CacheEnvironment()
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts))
        try container.install([AccountsFeatureKit()])
        return GraphQLClient(
            configuration: .init(
                endpoint: fixture.backend.baseURL.appendingPathComponent("graphql"), environment: environment,
                tokenProvider: StaticTokenProvider(credentials), container: container, retry: .none,
                // A deadline against a hang, not a timing: a page asked for under the suite's load can wait past 30 s.
                requestTimeout: TestDeadline.request))
    }

    @Test func aPaymentUpdatesTheAccountEverywhereAndTheDashboardTotal() async throws {
        try await withBackend(5) { fixture in
            let graphQL = try await client(fixture)
            let dashboard = try await graphQL.fetch(DashboardQuery())
            let total = try #require(dashboard.data["dashboard"]?["totalBalance"])
            let before = try await graphQL.fetch(AccountQuery(id: "100"))
            #expect(before.data["account"]?["balance"] == 104_200)

            let payment = try await graphQL.perform(MakePaymentMutation(accountId: "100", amount: 1_250, description: nil))
            #expect(payment.data["makePayment"]?["account"]?["balance"] == 102_950)
            let cached = try await graphQL.fetch(AccountQuery(id: "100"), policy: .returnCacheDataDontFetch)
            #expect(cached.data["account"]?["balance"] == 102_950)
            let fresh = try await graphQL.fetch(DashboardQuery(), policy: .fetchIgnoringCacheData)
            #expect(fresh.data["dashboard"]?["totalBalance"] == .int((total.intValue ?? 0) - 1_250))
        }
    }

    @Test func transactionsPageWithCursorsNewestFirst() async throws {
        try await withBackend(5) { fixture in
            let graphQL = try await client(fixture)
            var seen: [String] = []
            var dates: [String] = []
            var after: String?
            repeat {
                let page = try await graphQL.fetch(TransactionsQuery(id: "100", after: after)).data["account"]?["transactions"]
                let items = page?["items"]?.arrayValue ?? []
                seen += items.compactMap { $0["id"]?.stringValue }
                dates += items.compactMap { $0["date"]?.stringValue }
                after = page?["nextCursor"]?.stringValue
                #expect((page?["hasMore"] == true) == (after != nil))
            } while after != nil
            #expect(seen.count == 40 && Set(seen).count == 40)
            #expect(dates == dates.sorted(by: >))
            await #expect(throws: APIError.self) { try await graphQL.fetch(TransactionsQuery(id: "100", after: "bm9wZQ==")) }
        }
    }

    @Test func unauthorizedForbiddenAndInsufficientFundsAreTyped() async throws {
        try await withBackend(5) { fixture in
            let anonymous = try await client(fixture, email: nil)
            do throws(APIError) {
                _ = try await anonymous.fetch(DashboardQuery())
                Issue.record("expected 401")
            } catch {
                guard case .unauthorized = error else {
                    Issue.record("expected .unauthorized, got \(error)")
                    return
                }
            }
            let alice = try await client(fixture)
            do throws(APIError) {
                _ = try await alice.fetch(AccountQuery(id: "200"))
                Issue.record("expected 403")
            } catch {
                guard case .forbidden = error else {
                    Issue.record("expected .forbidden, got \(error)")
                    return
                }
            }
            do throws(APIError) {
                _ = try await alice.perform(MakePaymentMutation(accountId: "100", amount: 10_000_000, description: nil))
                Issue.record("expected insufficient funds")
            } catch {
                #expect(error.serverCode == "INSUFFICIENT_FUNDS")
            }
        }
    }
}
