import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

/// A GraphQL mutation through the ``MutationQueue``: its optimistic update shows at once, survives
/// retries and a restart of the queue, and is rolled back exactly when the server refuses it for good.
@Suite(.timeLimit(.minutes(10))) struct QueuedGraphQLMutationTests {
    static let payment = QueuedRequest.graphQL(
        document: PaymentMutation.document,
        variables: ["accountId": "100", "amount": 100])

    func queue(_ fixture: GraphQLFixture, _ directory: TemporaryDirectory) -> MutationQueue {
        MutationQueue(
            configuration: .init(
                directory: directory.url.appendingPathComponent("mutations"), tokenProvider: fixture.tokens, graphQL: fixture.client,
                container: fixture.container, clock: fixture.clock, sleeper: RecordingSleeper()))
    }

    @Test func anOptimisticUpdateShowsAtOnceStaysWhileRetryingAndRollsBackWhenRefused() async throws {
        try await withBank { bank in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let fixture = try GraphQLFixture(
                endpoint: bank.endpoint,
                store: try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite")))
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).balance == 1_000)
            bank.state.withLock { $0.failWith = 503 }
            let first = queue(fixture, directory)
            let queued = try await first.enqueue(
                Self.payment, name: "payment",
                optimisticResponse: GraphQLWatchTests.optimisticPayment(balance: 0))
            #expect(queued.name == "MakePayment", "named by its operation")
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 0)
            #expect(await first.replay().stoppedBy != nil)
            #expect(
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 0,
                "a retryable failure keeps the optimistic update")

            bank.state.withLock { $0.failWith = 400 }
            let restarted = queue(fixture, directory)
            let report = await restarted.replay()
            #expect(report.refused.count == 1 && report.remaining == 0)
            #expect(
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 1_000,
                "rolled back from the write kept on disk with the queued mutation")
        }
    }

    @Test func aQueuedMutationSentLaterWritesTheServersResult() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let queue = queue(fixture, directory)
            try await queue.enqueue(Self.payment, name: "payment", optimisticResponse: GraphQLWatchTests.optimisticPayment(balance: 0))
            #expect(await queue.replay().sent == 1)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 900)
            #expect(bank.count("MakePayment") == 1)
        }
    }

    /// Bob signs in after the replay read Alice's credentials: her payment is neither sent under her ended session nor
    /// kept as refused; it waits in her queue for her next sign-in.
    @Test func aChangeReadForAnEndedSessionWaitsInItsUsersQueue() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let queue = queue(fixture, directory)
            try await queue.enqueue(Self.payment, name: "payment")
            fixture.tokens.set(Credentials(accessToken: "token-b", userId: "user-b"), afterCalls: 1)
            let report = await queue.replay()
            #expect(report.refused.isEmpty, "Alice's payment was refused for Bob's session")
            #expect(report.sent == 0 && bank.count("MakePayment") == 0, "Alice's payment went out after her session ended")
            fixture.tokens.set(Credentials(accessToken: "token-a", userId: "user-a"))
            #expect(await queue.pending().map(\.name) == ["MakePayment"], "Alice's payment is no longer queued")
        }
    }

    @Test func aPaymentDeclaredRequiringAConnectionFailsAtOnceWithATypedError() async throws {
        let transport = RecordingTransport()
        transport.stub(.post, "/graphql", error: .offline(reason: "unreachable"))
        let fixture = try GraphQLFixture(endpoint: try #require(URL(string: "http://bank.test/graphql")), transport: transport)
        try fixture.container.install([Declarations()])
        await #expect(throws: APIError.requiresConnection(operation: "MakePayment")) {
            _ = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 1))
        }
    }

    @Test func aGraphQLMutationOnAQueueWithoutAGraphQLClientIsRefusedAtEnqueue() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tokens = StaticTokenProvider(Credentials(accessToken: "t", userId: "alice"))
        let queue = MutationQueue(
            configuration: .init(directory: directory.url, tokenProvider: tokens, sleeper: RecordingSleeper()))
        await #expect(
            throws: MutationQueueError.invalidOperation(.unsupported("a GraphQL mutation on a queue with no GraphQL client"))
        ) {
            try await queue.enqueue(Self.payment, name: "payment")
        }
        #expect(await queue.pending().isEmpty, "nothing was queued that could never be sent")
    }

    struct Declarations: FeatureKit {
        let name = "payments"
        func register(in registry: KitRegistry) throws(ContainerError) {
            registry.declareMutation("MakePayment", .requiresConnection)
        }
    }
}
