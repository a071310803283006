import APICore
import APICoreGraphQL
import APICoreREST
import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// Watchers, mutations and optimistic updates against the bank on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct GraphQLWatchTests {
    @Test func aWatcherDeliversWhenAFieldItReadChangesAndNotOtherwise() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            var watch = client.watch(BalanceQuery(id: "100")).makeAsyncIterator()
            #expect(try await watch.next()?.get().balance == 1_000)

            // Another account changes: nothing is delivered for it, so the next delivery is the payment's.
            bank.setBalance(1, of: "1002")
            _ = try await client.fetch(BalanceQuery(id: "1002"), policy: .fetchIgnoringCacheData)
            _ = try await client.perform(PaymentMutation(accountId: "100", amount: 10))
            let afterPayment = try await watch.next()?.get()
            #expect(afterPayment?.balance == 990 && afterPayment?.source == .cache)

            // Another query reading the same field.
            bank.setBalance(500, of: "100")
            _ = try await client.fetch(AccountDetailsQuery(id: "100"), policy: .fetchIgnoringCacheData)
            #expect(try await watch.next()?.get().balance == 500)

            // A local write.
            try client.writeLocal(
                BalanceQuery(id: "100"),
                data: [
                    "__typename": "Query", "account": ["__typename": "Account", "id": "100", "balance": 5],
                ])
            #expect(try await watch.next()?.get().balance == 5)
            // The watcher's own fetch and account 1002's: none for the deliveries.
            #expect(bank.count("AccountBalance") == 2)
        }
    }

    @Test func aWatcherEndsCleanlyWhenTheConsumerStops() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            let consumer = Task {
                var count = 0
                for await _ in client.watch(BalanceQuery(id: "100")) { count += 1 }
                return count
            }
            try await waitUntil("the watcher fetched once") { client.watcherCount == 1 && bank.count("AccountBalance") == 1 }
            consumer.cancel()
            #expect(await consumer.value <= 1)
            try await waitUntil("the watcher ended") { client.watcherCount == 0 }
            // Writing afterwards reaches no one and fails nothing.
            _ = try await client.perform(PaymentMutation(accountId: "100", amount: 1))
        }
    }

    @Test func aWatcherRefetchesWhenItsAccountIsCleared() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            var watch = fixture.client.watch(BalanceQuery(id: "100")).makeAsyncIterator()
            #expect(try await watch.next()?.get().balance == 1_000)
            bank.setBalance(3, of: "100")
            _ = await fixture.unified.clearCache(forAccountId: "100")
            #expect(try await watch.next()?.get().balance == 3)
            #expect(bank.count("AccountBalance") == 2)
        }
    }

    @Test func aFailedOptimisticPaymentIsRolledBackExactly() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            var watch = client.watch(BalanceQuery(id: "100")).makeAsyncIterator()
            #expect(try await watch.next()?.get().balance == 1_000)
            let before = try client.cache.store.record(forKey: "Account:100")
            do throws(APIError) {
                _ = try await client.perform(
                    PaymentMutation(accountId: "100", amount: 5_000),
                    optimisticResponse: Self.optimisticPayment(balance: -4_000))
                Issue.record("expected insufficient funds")
            } catch {
                #expect(error.serverCode == "INSUFFICIENT_FUNDS")
            }
            #expect(try await watch.next()?.get().balance == -4_000)
            #expect(try await watch.next()?.get().balance == 1_000)
            #expect(try client.cache.store.record(forKey: "Account:100") == before)
            #expect(try client.cache.store.record(forKey: "Transaction:pending")?.fields.isEmpty != false)
            #expect(try client.cache.store.record(forKey: RootKey.mutation)?.fields.isEmpty != false)
            // Still fresh: the restored field kept its original write time.
            #expect(try await client.fetch(BalanceQuery(id: "100")).source == .cache)
        }
    }

    @Test func aSuccessfulOptimisticPaymentEndsWithTheServersValue() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            var watch = client.watch(BalanceQuery(id: "100")).makeAsyncIterator()
            #expect(try await watch.next()?.get().balance == 1_000)
            _ = try await client.perform(
                PaymentMutation(accountId: "100", amount: 100),
                optimisticResponse: Self.optimisticPayment(balance: 0))
            #expect(try await watch.next()?.get().balance == 0)
            #expect(try await watch.next()?.get().balance == 900)
            #expect(try client.cache.store.record(forKey: "Transaction:pending")?.fields.isEmpty != false)
            #expect(try client.cache.store.record(forKey: "Transaction:t2")?.fields["amount"] == .value(.int(-100)))
        }
    }

    @Test func aPaymentWhileTheBackendFailsLeavesTheCacheAsItWas() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(AccountDetailsQuery(id: "100"))
            let before = try fixture.client.cache.store.usage()
            let account = try fixture.client.cache.store.record(forKey: "Account:100")
            bank.state.withLock { $0.failWith = 500 }
            await #expect(throws: APIError.self) {
                try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 10))
            }
            #expect(try fixture.client.cache.store.usage() == before)
            #expect(try fixture.client.cache.store.record(forKey: "Account:100") == account)
            // Mutations are never retried.
            #expect(bank.count("MakePayment") == 1)
        }
    }

    static func optimisticPayment(balance: Int) -> [String: JSONValue] {
        [
            "makePayment": [
                "__typename": "Payment",
                "account": ["__typename": "Account", "id": "100", "balance": .int(balance)],
                "transaction": ["__typename": "Transaction", "id": "pending", "amount": -1],
            ]
        ]
    }
}
