import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// Nothing of a user is written after the logout clear, whatever was in flight.
@Suite(.timeLimit(.minutes(10))) struct GraphQLLogoutTests {
    @Test(arguments: [false, true]) func aMutationInFlightAtLogoutLeavesNothingOfItsUser(optimistic: Bool) async throws {
        try await withBank { bank in
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("records.sqlite")
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, store: try SQLiteRecordStore(url: file))
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let gate = AsyncGate()
            bank.state.withLock { $0.gate = gate }
            let optimisticData: [String: JSONValue]? =
                optimistic
                ? [
                    "makePayment": [
                        "__typename": "PaymentResult",
                        "account": ["__typename": "Account", "id": "100", "balance": 777_777],
                        "transaction": ["__typename": "Transaction", "id": "optimistic", "amount": -1],
                    ]
                ]
                : nil
            let payment = Task {
                try await fixture.client.perform(
                    PaymentMutation(accountId: "100", amount: 250),
                    optimisticResponse: optimisticData)
            }
            try await waitUntil("the payment reached the bank") { bank.count("MakePayment") == 1 }
            // Logout while the payment is on the wire.
            #expect(await fixture.unified.clearAllCaches().isComplete)
            fixture.tokens.set(nil)
            gate.open()
            _ = try await payment.value
            #expect(try fixture.client.cache.store.usage().count == 0, "the payment's result was written after the clear")
            // User B signs in: nothing of A is readable, and the file holds none of A's records.
            fixture.tokens.set(Credentials(accessToken: "token-b", userId: "user-b"))
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            _ = try await fixture.client.fetch(ProfileQuery())
            let bytes = try [file, URL(fileURLWithPath: file.path + "-wal")]
                .filter { FileManager.default.fileExists(atPath: $0.path) }
                .map { try Data(contentsOf: $0) }
            for data in bytes {
                #expect(data.range(of: Data("Account:100".utf8)) == nil, "user A's account is still in the SQLite file")
                #expect(data.range(of: Data("makePayment".utf8)) == nil, "user A's payment is still in the SQLite file")
            }
        }
    }

    /// A relaunch asked for by nobody (signed out, or its session not yet allowed to be used: a token past its offline
    /// limits while the server is asked): the records the file kept are an unknown user's, and are cleared, not read.
    /// Asked for by a user, the same file is read (the offline-first relaunch).
    @Test func aRelaunchAskedForByNobodyReadsNothingTheFileKept() async throws {
        try await withBank { bank in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let file = directory.url.appendingPathComponent("records.sqlite")
            let first = try GraphQLFixture(endpoint: bank.endpoint, store: try SQLiteRecordStore(url: file))
            #expect(try await first.client.fetch(BalanceQuery(id: "100")).balance == 1_000)
            let byTheUser = try GraphQLFixture(endpoint: bank.endpoint, store: try SQLiteRecordStore(url: file))
            let read = try await byTheUser.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            #expect(read.balance == 1_000 && read.source == .cache)
            let byNobody = try GraphQLFixture(endpoint: bank.endpoint, store: try SQLiteRecordStore(url: file))
            byNobody.tokens.set(nil)
            await #expect(throws: APIError.notCached()) {
                try await byNobody.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            byNobody.tokens.set(Credentials(accessToken: "token-a", userId: "user-a"))
            await #expect(throws: APIError.notCached(), "the records were hidden from nobody, not cleared") {
                try await byNobody.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
        }
    }
}
