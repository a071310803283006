import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// `GraphQLClient.fetch(_:as:)`: a fresh hit decodes straight from the records and must give exactly what
/// the tree and `JSONDecoder` give; a miss, stale data or a type that does not fit goes the tree's way.
@Suite(.timeLimit(.minutes(10))) struct TypedReadTests {
    struct Details: Decodable, Sendable, Equatable {
        struct Transaction: Decodable, Sendable, Equatable {
            var id: String
            var amount: Int
        }
        struct Account: Decodable, Sendable, Equatable {
            var id: String
            var name: String
            var balance: Int
            var recentTransactions: [Transaction]
        }
        var account: Account?
    }

    struct Dashboard: Decodable, Sendable, Equatable {
        struct Account: Decodable, Sendable, Equatable {
            var id: String
            var name: String
            var nickname: String?
        }
        struct Fields: Decodable, Sendable, Equatable {
            var totalBalance: Double
            var accounts: [Account]
        }
        var dashboard: Fields
    }

    @Test func aFreshHitDecodesFromTheRecordsExactlyAsTheTreeDoes() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let first = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self)
            #expect(first.source == .network)
            let hit = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self)
            #expect(hit.source == .cache && hit.freshness.state == .fresh)
            let tree = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), policy: .returnCacheDataDontFetch)
            #expect(hit.value == (try tree.decode(Details.self)))
            #expect(hit.value == first.value)
            #expect(hit.value.account?.recentTransactions.isEmpty == false)
            #expect(bank.count("AccountDetails") == 1)
            // Lists of references, an optional the query does not select, numbers read as Double.
            _ = try await fixture.client.fetch(DashboardQuery(), as: Dashboard.self)
            let dashboard = try await fixture.client.fetch(DashboardQuery(), as: Dashboard.self)
            #expect(dashboard.source == .cache && dashboard.value.dashboard.accounts.count > 1)
            #expect(dashboard.value.dashboard.accounts.allSatisfy { $0.nickname == nil })
            #expect(fixture.counts().hits >= 2)
        }
    }

    @Test func aMissingRecordStaleDataAndACacheOnlyMissGoTheTreesWay() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            await #expect(throws: APIError.self) {
                try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self, policy: .returnCacheDataDontFetch)
            }
            _ = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self)
            // A record the query reads is gone: a miss, fetched again.
            try fixture.client.cache.removeObject(forKey: "Transaction:t1")
            let refetched = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self)
            #expect(refetched.source == .network)
            #expect(bank.count("AccountDetails") == 2)
            // Past the kit's 120 s: stale, so the network answers.
            fixture.clock.advance(by: 121)
            let fresh = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), as: Details.self)
            #expect(fresh.source == .network && bank.count("AccountDetails") == 3)
        }
    }

    @Test func aTypeThatDoesNotFitIsADecodingErrorWithItsPath() async throws {
        struct Wrong: Decodable, Sendable {
            struct Account: Decodable, Sendable { var balance: String }
            var account: Account
        }
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            do {
                _ = try await fixture.client.fetch(BalanceQuery(id: "100"), as: Wrong.self)
                Issue.record("decoded a number as a string")
            } catch let error as APIError {
                guard case .decoding(let path, _) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(path == "account.balance")
            }
        }
    }

    @Test func theDecoderReadsAliasesArgumentsAndNullsFromRecords() throws {
        let store = InMemoryRecordStore()
        let cache = NormalizedCache(store: store, clock: ManualClock()) { _ in BankKit.Keys() }
        let operation = try GraphQLOperation(
            #"query { main: account(id: "1") { id name } other: account(id: "2") { id name } missing: account(id: "3") { id } }"#)
        try cache.write(
            [
                "main": ["__typename": "Account", "id": "1", "name": "Main"],
                "other": ["__typename": "Account", "id": "2", "name": "Savings"], "missing": nil,
            ], for: operation)
        struct Named: Decodable, Equatable {
            var id: String
            var name: String
        }
        struct Both: Decodable, Equatable {
            var main: Named
            var other: Named
            var missing: Named?
        }
        let read = try cache.decode(Both.self, operation, variables: [:])
        #expect(read.value == Both(main: Named(id: "1", name: "Main"), other: Named(id: "2", name: "Savings"), missing: nil))
        #expect(read.oldestWrite != nil)
        struct Unselected: Decodable { var balance: Int }
        #expect(throws: DecodingError.self) { try cache.decode([String: Unselected].self, operation, variables: [:]) }
    }
}
