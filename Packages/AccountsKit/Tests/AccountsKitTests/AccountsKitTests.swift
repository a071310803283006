import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import AccountsKitTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import AccountsKit

/// The kit's logic with a recording transport: keys, registration, validation and error mapping.
/// Its behaviour against a real GraphQL server is in the root's `AccountsKitAgainstBackendTests`.
@Suite(.timeLimit(.minutes(10))) struct AccountsKitTests {
    struct Fixture {
        let transport = RecordingTransport()
        let clock = ManualClock()
        let container: DependencyContainer
        let accounts: AccountsClient

        init() throws {
            var logger = Logger(label: "accounts-test")
            logger.logLevel = .critical
            let environment = CacheEnvironment(clock: clock, logger: logger, cachesDirectory: FileManager.default.temporaryDirectory)
            container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts, logger: logger))
            try container.install([AccountsFeatureKit()])
            let endpoint = try #require(URL(string: "http://bank.test/graphql"))
            let graphQL = GraphQLClient(
                configuration: .init(
                    endpoint: endpoint, transport: transport, environment: environment, container: container, retry: .none))
            try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
            try container.verify()
            accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
        }
    }

    @Test func keysAndAccountTags() {
        let keys = AccountsCacheKeys()
        #expect(keys.cacheKey(for: ["id": "100"], typename: "Account") == NormalizedCacheKey("Account:100", accountId: "100"))
        #expect(
            keys.cacheKey(for: ["id": "t9", "accountId": "100"], typename: "Transaction")
                == NormalizedCacheKey("Transaction:t9", accountId: "100"))
        #expect(
            keys.cacheKey(for: ["id": "b", "accountId": "100"], typename: "AccountBalance")
                == NormalizedCacheKey("AccountBalance:100", accountId: "100"))
        #expect(keys.cacheKey(for: ["id": "u1"], typename: "User") == NormalizedCacheKey("User:u1"))
        #expect(keys.cacheKey(for: ["name": "no id"], typename: "Account") == nil)
        #expect(keys.cacheKey(for: ["id": "d"], typename: "Dashboard") == nil)
    }

    @Test func theKitRegistersItsRuleTimeoutsAndNeedsAGraphQLClient() throws {
        let fixture = try Fixture()
        #expect(fixture.container.refetchRules(forMutation: "MakePayment") == [AccountsFeatureKit.paymentRule])
        #expect(fixture.container.defaultTimeout(forFeature: AccountsFeature.balances) == .seconds(30))
        #expect(fixture.container.defaultTimeout(forFeature: AccountsFeature.profile) == .seconds(900))
        #expect(fixture.container.claimedTypenames["Account"] == "accounts")

        let bare = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()))
        try bare.install([AccountsFeatureKit()])
        #expect(
            throws: ContainerError.verificationFailed([
                .missingRegistration(type: String(reflecting: GraphQLClient.self), requestedBy: "accounts")
            ])
        ) { try bare.verify() }
    }

    @Test(arguments: [0, -5]) func aPaymentOfNothingFailsBeforeAnyRequest(_ amount: Int) async throws {
        let fixture = try Fixture()
        await #expect(throws: AccountsError.invalidAmount(amount)) {
            try await fixture.accounts.makePayment(accountId: "100", amount: amount)
        }
        await #expect(throws: AccountsError.invalidAmount(amount)) {
            try await fixture.accounts.checkFunds(accountId: "100", amount: amount)
        }
        #expect(fixture.transport.requests.isEmpty)
    }

    @Test func paymentFailuresAreDistinct() async throws {
        let fixture = try Fixture()
        fixture.transport.stub(.post, "/graphql", answer: BankResponses.error(code: "INSUFFICIENT_FUNDS", message: "insufficient funds"))
        fixture.transport.stub(.post, "/graphql", answer: BankResponses.error(code: "UNKNOWN_ACCOUNT", message: "no account 7"))
        fixture.transport.stub(.post, "/graphql", status: 500, body: Data("boom".utf8))
        await #expect(throws: AccountsError.insufficientFunds(accountId: "100")) {
            try await fixture.accounts.makePayment(accountId: "100", amount: 1)
        }
        await #expect(throws: AccountsError.unknownAccount("7")) { try await fixture.accounts.makePayment(accountId: "7", amount: 1) }
        // A 500 may follow a payment the server made: its outcome is unknown, and its key is kept.
        await #expect(throws: AccountsError.paymentOutcomeUnknown(accountId: "100")) {
            try await fixture.accounts.makePayment(accountId: "100", amount: 1)
        }
    }

    @Test func aBalanceDecodesAndAMissingAccountIsUnknown() async throws {
        let fixture = try Fixture()
        fixture.transport.stub(.post, "/graphql", answer: BankResponses.data(["account": BankResponses.account(id: "100", balance: 5_000)]))
        fixture.transport.stub(.post, "/graphql", answer: BankResponses.data(["account": .null]))
        let balance = try await fixture.accounts.balance(accountId: "100")
        #expect(balance.value == AccountBalance(accountId: "100", amount: 5_000, currency: "EUR") && balance.source == .network)
        // The same field, read again from the store by the balance query: no request.
        #expect(try await fixture.accounts.balance(accountId: "100", policy: .returnCacheDataDontFetch).value.amount == 5_000)
        #expect(fixture.transport.requests.count == 1)
        await #expect(throws: AccountsError.unknownAccount("404")) { try await fixture.accounts.balance(accountId: "404") }
    }
}
