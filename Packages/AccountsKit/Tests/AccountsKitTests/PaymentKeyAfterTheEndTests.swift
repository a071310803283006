import APICore
import APICoreGraphQL
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Logging
import Testing

@testable import AccountsKit

/// A payment's idempotency key is never left on disk for a session that ended while the key was being kept: an account
/// deletion whose eraser ran after the payment read its user (the deleted user's key would outlive the deletion), or
/// another user's sign-in. A key kept from an earlier attempt whose outcome is unknown stays, as before.
@Suite(.timeLimit(.minutes(10))) struct PaymentKeyAfterTheEndTests {
    let folder: TemporaryDirectory
    let transport = RecordingTransport()
    let tokens = StaticTokenProvider(Credentials(accessToken: "alice-token", userId: "alice"))
    let accounts: AccountsClient

    init() throws {
        folder = try TemporaryDirectory()
        var logger = Logger(label: "payment-key-test")
        logger.logLevel = .critical
        let environment = CacheEnvironment(
            clock: ManualClock(), logger: logger, cachesDirectory: folder.url.appendingPathComponent("caches"),
            dataDirectory: folder.url.appendingPathComponent("data"))
        let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts, logger: logger))
        try container.install([AccountsFeatureKit()])
        let endpoint = try #require(URL(string: "http://bank.test/graphql"))
        let graphQL = GraphQLClient(
            configuration: .init(
                endpoint: endpoint, transport: transport, environment: environment, tokenProvider: tokens, container: container,
                retry: .none))
        try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
        try container.verify()
        accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
    }

    /// The files of the payments' keys, every user's.
    var keyFiles: [URL] { folder.files().filter { $0.path.contains("/intents/accounts/") } }

    @Test func aDeletionWhoseEraserRanAfterThePaymentReadItsUserLeavesNoKey() async throws {
        // The payment reads "alice"; the deletion's eraser runs before it keeps its key; the session holds no token
        // at the payment's next read (the deletion took it first, in the app).
        let accounts = self.accounts
        tokens.beforeAnswering { try? accounts.erase(userId: "alice") }
        tokens.set(nil, afterCalls: 1)
        await #expect(throws: AccountsError.api(.sessionChanged)) {
            try await accounts.makePayment(accountId: "100", amount: 1_250, description: "Rent")
        }
        #expect(keyFiles.isEmpty, "the deleted user's key outlived the deletion: \(keyFiles.map(\.lastPathComponent))")
        #expect(transport.requests.isEmpty, "nothing is sent for an ended session")
    }

    @Test func anotherUsersSignInKeepsTheKeyOfAnAttemptWhoseOutcomeIsUnknown() async throws {
        // An earlier attempt of the same payment was sent and its outcome is not known: its key is on disk.
        let intent = AccountsClient.paymentIntent(accountId: "100", amount: 1_250, description: "Rent")
        let earlier = try #require(try await accounts.intents.key(for: intent, user: "alice") { "alice" })
        // Bob signs in between the payment's read of its user and its second look.
        tokens.set(Credentials(accessToken: "bob-token", userId: "bob"), afterCalls: 1)
        await #expect(throws: AccountsError.api(.sessionChanged)) {
            try await accounts.makePayment(accountId: "100", amount: 1_250, description: "Rent")
        }
        #expect(accounts.intents.isUnresolved(intent, user: "alice"), "the unknown outcome's key was forgotten")
        let again = try await accounts.intents.key(for: intent, user: "alice") { "alice" }
        #expect(again == earlier, "a retry after the switch would not send the first attempt's key")
        #expect(transport.requests.isEmpty)
    }

    @Test func aNewKeyIsForgottenWhenAnotherUserSignedIn() async throws {
        tokens.set(Credentials(accessToken: "bob-token", userId: "bob"), afterCalls: 1)
        await #expect(throws: AccountsError.api(.sessionChanged)) {
            try await accounts.makePayment(accountId: "100", amount: 1_250, description: "Rent")
        }
        #expect(keyFiles.isEmpty, "a key for a payment never sent was kept: \(keyFiles.map(\.lastPathComponent))")
    }
}
