import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import AccountsKit
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend
import Testing

/// AccountsKit against the reference backend's GraphQL endpoint on 127.0.0.1: the three
/// examples of REQ ARC-2, the per-query timeouts on a manual clock, the payment's refetch rule, account-scoped
/// clearing and a payment while the backend fails.
@Suite(.timeLimit(.minutes(10))) struct AccountsKitAgainstBackendTests {
    struct App {
        let clock = ManualClock()
        /// Records whose token each request left with.
        let hook = HookTransport(URLSessionTransport())
        let transport: CountingTransport
        let tokens: StaticTokenProvider
        let graphQL: GraphQLClient
        let accounts: AccountsClient

        init(_ fixture: BackendFixture, email: String = "alice@example.com", password: String = "Password1") async throws {
            let login = try await fixture.send(.post, "/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
            let body = try JSONValue.parse(login.body)["data"]
            let credentials = Credentials(
                accessToken: try #require(body?["token"]?.stringValue),
                userId: try #require(body?["user"]?["id"]?.stringValue))
            transport = CountingTransport(hook)
            tokens = StaticTokenProvider(credentials)
            var logger = Logger(label: "accounts-backend-test")
            logger.logLevel = .critical
            let environment = CacheEnvironment(clock: clock, logger: logger, cachesDirectory: fixture.directory.url)
            let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: environment.timeouts, logger: logger))
            try container.install([AccountsFeatureKit()])
            let graphQL = GraphQLClient(
                configuration: .init(
                    endpoint: fixture.backend.baseURL.appendingPathComponent("graphql"), transport: transport, environment: environment,
                    tokenProvider: tokens, container: container, retry: .none))
            try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
            try container.verify()
            self.graphQL = graphQL
            accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
        }

        var requests: Int { transport.count("/graphql") }
    }

    @Test func aBalanceReadByTwoQueriesIsStoredOnceAndAPaymentUpdatesBothWithoutARequest() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            let balance = try await app.accounts.balance(accountId: "100").value.amount
            let details = try await app.accounts.account(id: "100").value
            #expect(details.balance == balance)
            // One Account:100 record holds the balance both queries read.
            let records = try app.graphQL.cache.store.describeRecords().filter { $0.key.hasPrefix("Account:") }
            #expect(records.map(\.key) == ["Account:100"])

            let receipt = try await app.accounts.makePayment(accountId: "100", amount: 1_250)
            #expect(receipt.newBalance == balance - 1_250)
            let requests = app.requests
            #expect(try await app.accounts.balance(accountId: "100", policy: .returnCacheDataDontFetch).value.amount == balance - 1_250)
            #expect(try await app.accounts.account(id: "100", policy: .returnCacheDataDontFetch).value.balance == balance - 1_250)
            #expect(app.requests == requests)
        }
    }

    @Test func theDashboardAfterAPaymentShowsTheNewTotal() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            let before = try await app.accounts.dashboard().value
            let receipt = try await app.accounts.makePayment(accountId: "100", amount: 1_000)
            // The account inside the dashboard is Account:100: its balance is new at once.
            let now = try await app.accounts.dashboard(policy: .returnCacheDataDontFetch).value
            #expect(now.accounts.first { $0.id == "100" }?.balance == receipt.newBalance)
            // The server's total follows with the background refetch.
            let background = await receipt.background?.value ?? []
            #expect(background.map(\.query) == ["Dashboard"])
            let after = try await app.accounts.dashboard(policy: .returnCacheDataDontFetch).value
            #expect(after.totalBalance == before.totalBalance - 1_000)
        }
    }

    @Test func criticalRefetchesFinishBeforeThePaymentReturnsBackgroundOnesAfter() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            _ = try await app.accounts.balance(accountId: "100")
            _ = try await app.accounts.recentTransactions(accountId: "100")
            _ = try await app.accounts.dashboard()
            _ = try await app.accounts.allTransactions(accountId: "100", pageSize: 7)
            let before = app.requests
            let receipt = try await app.accounts.makePayment(accountId: "100", amount: 10, description: "Coffee")
            #expect(Set(receipt.critical.map(\.query)) == ["AccountBalance", "RecentTransactions"])
            #expect(receipt.critical.allSatisfy { if case .success = $0.outcome { true } else { false } })
            // Payment + 2 critical requests so far; the recent list already shows the payment.
            #expect(app.requests >= before + 3)
            let recent = try await app.accounts.recentTransactions(accountId: "100", policy: .returnCacheDataDontFetch).value
            #expect(recent.first == receipt.transaction && receipt.transaction.description == "Coffee")
            let background = await receipt.background?.value ?? []
            #expect(Set(background.map(\.query)) == ["AllTransactions", "Dashboard"])
            // The refetched first page starts with the payment; pages whose cursor moved are fetched as
            // the list is walked again, and nothing comes twice.
            let all = try await app.accounts.allTransactions(accountId: "100", pageSize: 7)
            #expect(all.first?.id == receipt.transaction.id && Set(all.map(\.id)).count == all.count)
        }
    }

    @Test func aBalanceExpiresAfterThirtySecondsWhileTheProfileStaysFifteenMinutes() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            _ = try await app.accounts.balance(accountId: "100")
            #expect(try await app.accounts.profile().value.email == "alice@example.com")
            app.clock.advance(by: 29)
            #expect(try await app.accounts.balance(accountId: "100").source == .cache)
            app.clock.advance(by: 2)
            #expect(try await app.accounts.balance(accountId: "100").source == .network)
            app.clock.advance(by: 14 * 60)
            #expect(try await app.accounts.profile().source == .cache)
            app.clock.advance(by: 60)
            #expect(try await app.accounts.profile().source == .network)
        }
    }

    @Test func clearingOneAccountKeepsTheOthers() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            _ = try await app.accounts.account(id: "100")
            _ = try await app.accounts.recentTransactions(accountId: "100")
            _ = try await app.accounts.account(id: "1002")
            _ = try await app.accounts.recentTransactions(accountId: "1002")
            try await app.accounts.clear(accountId: "100")
            await #expect(throws: AccountsError.self) { try await app.accounts.account(id: "100", policy: .returnCacheDataDontFetch) }
            await #expect(throws: AccountsError.self) {
                try await app.accounts.recentTransactions(accountId: "100", policy: .returnCacheDataDontFetch)
            }
            #expect(try await app.accounts.account(id: "1002", policy: .returnCacheDataDontFetch).value.id == "1002")
            #expect(try await !app.accounts.recentTransactions(accountId: "1002", policy: .returnCacheDataDontFetch).value.isEmpty)
            let keys = try app.graphQL.cache.store.describeRecords().map(\.key)
            #expect(!keys.contains("Account:100") && keys.contains("Account:1002"))
        }
    }

    @Test func aPaymentWhileTheBackendFailsLeavesTheCacheAsItWas() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            let balance = try await app.accounts.balance(accountId: "100").value
            let recent = try await app.accounts.recentTransactions(accountId: "100").value
            _ = try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/graphql","status":500}]"#)
            // A 500 or a dropped connection may come after the server took the payment: its outcome is unknown.
            await #expect(throws: AccountsError.paymentOutcomeUnknown(accountId: "100")) {
                try await app.accounts.makePayment(accountId: "100", amount: 500)
            }
            _ = try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/graphql","dropConnection":true}]"#)
            await #expect(throws: AccountsError.paymentOutcomeUnknown(accountId: "100"), "a payment is never queued") {
                try await app.accounts.makePayment(accountId: "100", amount: 500)
            }
            #expect(try await app.accounts.balance(accountId: "100", policy: .returnCacheDataDontFetch).value == balance)
            #expect(try await app.accounts.recentTransactions(accountId: "100", policy: .returnCacheDataDontFetch).value == recent)
            // Offline, two hours later: the last known balance, labelled with its age.
            app.clock.advance(by: 2 * 3_600)
            let offline = try await app.accounts.balance(accountId: "100")
            #expect(offline.value == balance && offline.status.isOffline)
            #expect(offline.status.label == "Offline · last updated 2 h ago")
        }
    }

    @Test func theFundsCheckAlwaysAsksTheServer() async throws {
        try await withBackend(5) { fixture in
            let app = try await App(fixture)
            let cached = try await app.accounts.balance(accountId: "100").value.amount
            let requests = app.requests
            let check = try await app.accounts.checkFunds(accountId: "100", amount: cached + 1)
            #expect(!check.isSufficient && check.available == cached && app.requests == requests + 1)
            await #expect(throws: AccountsError.insufficientFunds(accountId: "100")) {
                try await app.accounts.makePayment(accountId: "100", amount: cached + 1)
            }
            #expect(try await app.accounts.balance(accountId: "100", policy: .returnCacheDataDontFetch).value.amount == cached)
        }
    }

    @Test func anotherUsersAccountIsNeverRead() async throws {
        try await withBackend(5) { fixture in
            let bob = try await App(fixture, email: "bob@example.com", password: "Password2")
            await #expect(throws: AccountsError.self) { try await bob.accounts.balance(accountId: "100") }
            await #expect(throws: AccountsError.unknownAccount("404")) { try await bob.accounts.balance(accountId: "404") }
        }
    }
}
