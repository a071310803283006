import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The attack: a logout's clearing lands after a request asked who is signed in and before it holds the answer. The
/// request then goes out with the ended session's token; what it brings back must not be written after the clearing,
/// in the REST client's HTTP cache or in the GraphQL client's records. And a queued change read for one user is not
/// sent, nor its store re-owned, once another user holds the session.
@Suite(.timeLimit(.minutes(10))) struct ClearingBesideTheCredentialsTests {
    @Test func aRESTResponseToCredentialsReadBeforeAClearingIsNotStored() async throws {
        let server = try await TestServer.start { router in
            router.get("balance") { _, _ in reply(.ok, #"{"id":1,"name":"ALICE-BALANCE"}"#, [.cacheControl: "max-age=300"]) }
        }
        let fixture = try ClientFixture(baseURL: server.baseURL)
        defer { fixture.directory.remove() }
        let participant = fixture.client.cacheParticipant
        fixture.tokens.beforeAnswering { try? await participant.clearAll() }
        let answer = try await fixture.client.send(.item("/balance"))
        await server.stop()
        #expect(answer.value.name == "ALICE-BALANCE", "the caller still gets its answer")
        await #expect(throws: APIError.self, "the response was stored after the clearing") {
            _ = try await fixture.client.send(.item("/balance"), policy: .returnCacheDataDontFetch)
        }
        #expect(!fixture.directory.anyFileContains("ALICE-BALANCE"))
    }

    @Test func aGraphQLResponseToCredentialsReadBeforeAClearingIsNotWritten() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            // The fetch asks twice: whose records the store holds, then for the network's request; the clearing lands in the second.
            fixture.tokens.beforeAnswering(afterCalls: 1) { try? await client.clearAll() }
            let answer = try await client.fetch(BalanceQuery(id: "100"))
            #expect(answer.balance != nil, "the caller still gets its answer")
            #expect(try client.cache.store.usage().count == 0, "the response was written after the clearing")
            await #expect(throws: APIError.notCached()) {
                try await client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
        }
    }

    @Test func aQueuedMutationReadForAnEndedSessionIsNotSentAndLeavesTheNextUsersRecords() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let client = fixture.client
            // Bob holds the session and has read his balance; Alice's change was read from the queue before he signed in.
            fixture.tokens.set(Credentials(accessToken: "token-b", userId: "user-b"))
            _ = try await client.fetch(BalanceQuery(id: "100"))
            await #expect(throws: APIError.sessionChanged) {
                try await client.performQueued(
                    document: PaymentMutation.document, variables: PaymentMutation(accountId: "100", amount: 250).variables,
                    credentials: Credentials(accessToken: "token-a", userId: "user-a"), idempotencyKey: "k-1", optimistic: nil)
            }
            #expect(bank.count("MakePayment") == 0, "Alice's change went out while Bob held the session")
            let bobs = try await client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            #expect(bobs.balance != nil, "Bob's records were cleared for Alice's change")
        }
    }
}
