import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// The GraphQL client against a real GraphQL endpoint (Hummingbird + GraphQLSwift) on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct GraphQLClientTests {
    // MARK: The architecture's scenarios (REQ ARC-2)

    @Test func balanceCachedByTwoQueriesIsStoredOnce() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let balance = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let details = try await fixture.client.fetch(AccountDetailsQuery(id: "100"))
            #expect(balance.balance == 1_000 && details.balance == 1_000)
            #expect(try fixture.client.cache.store.record(forKey: "Account:100")?.fields["balance"] == .value(.int(1_000)))
            #expect(try fixture.client.cache.store.record(forKey: #"QUERY_ROOT.account(id:"100")"#) == nil)
            let again = try await fixture.client.fetch(BalanceQuery(id: "100"))
            #expect(again.source == .cache && again.balance == 1_000)
            #expect(bank.count("AccountBalance") == 1)
        }
    }

    @Test func paymentUpdatesBothQueriesWithoutARequest() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try await fixture.client.fetch(AccountDetailsQuery(id: "100"))
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 250))
            #expect(payment.critical.isEmpty && payment.background == nil)
            let balance = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            let details = try await fixture.client.fetch(AccountDetailsQuery(id: "100"), policy: .returnCacheDataDontFetch)
            #expect(balance.balance == 750 && details.balance == 750)
            #expect(bank.count("AccountBalance") == 1 && bank.count("AccountDetails") == 1)
        }
    }

    @Test func dashboardAfterPaymentShowsTheNewTotalThroughRefetchRules() async throws {
        try await withBank { bank in
            let rule = MutationRefetchRule(
                mutation: "MakePayment",
                strategy: .criticalAndBackground(critical: ["AccountBalance"], background: ["Dashboard"]))
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, rules: [rule])
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let before = try await fixture.client.fetch(DashboardQuery())
            #expect(before.data["dashboard"]?["totalBalance"] == .int(6_000))
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 100))
            #expect(payment.critical.map(\.query) == ["AccountBalance"])
            #expect(payment.critical.first?.outcome.success?.balance == 900)
            let background = await payment.background?.value ?? []
            #expect(background.map(\.query) == ["Dashboard"])
            let after = try await fixture.client.fetch(DashboardQuery(), policy: .returnCacheDataDontFetch)
            #expect(after.data["dashboard"]?["totalBalance"] == .int(5_900))
            #expect(bank.count("Dashboard") == 2 && bank.count("AccountBalance") == 2)
        }
    }

    @Test func refetchErrorsAreReportedPerQuery() async throws {
        try await withBank { bank in
            let rule = MutationRefetchRule(mutation: "MakePayment", strategy: .refetch(["AccountBalance", "Broken"]))
            let fixture = try GraphQLFixture(endpoint: bank.endpoint, rules: [rule])
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try? await fixture.client.fetch(BrokenQuery())
            let payment = try await fixture.client.perform(PaymentMutation(accountId: "100", amount: 1))
            let outcomes = Dictionary(uniqueKeysWithValues: payment.critical.map { ($0.query, $0.outcome) })
            #expect(outcomes["AccountBalance"]?.success?.balance == 999)
            guard case .failure(.graphQL(let failure)) = outcomes["Broken"] else {
                Issue.record("expected the Broken refetch's GraphQL error, got \(String(describing: outcomes["Broken"]))")
                return
            }
            #expect(failure.errors.first?.message == "broken on purpose")
        }
    }

    // MARK: Policies

    @Test func cacheFirstAnswersFromTheStoreUntilTheQueryExpires() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .network)
            _ = try await fixture.client.fetch(ProfileQuery())
            fixture.clock.advance(by: 29)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .cache)
            fixture.clock.advance(by: 2)
            // The balance's own 30 s have passed; the profile's 15 minutes have not.
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .network)
            #expect(try await fixture.client.fetch(ProfileQuery()).source == .cache)
            #expect(bank.count("AccountBalance") == 2 && bank.count("Profile") == 1)
            // Misses: the cold read and the expired one.
            #expect(fixture.counts().hits == 1 && fixture.counts().expirations == 1 && fixture.counts().misses == 2)
        }
    }

    @Test func timeoutPrecedenceIsCallSiteThenTypeThenKitThenGlobal() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(AccountsQuery())
            fixture.clock.advance(by: 100)
            // No timeout of its own: the kit's 120 s applies.
            #expect(try await fixture.client.fetch(AccountsQuery()).source == .cache)
            // The call site's 10 s beats the kit's.
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(AccountsQuery(), policy: .returnCacheDataDontFetch, timeout: .seconds(10))
            }
            // Past the kit's 120 s, within the global 300 s: the kit's beats the global default.
            fixture.clock.advance(by: 21)
            #expect(try await fixture.client.fetch(AccountsQuery()).source == .network)
            #expect(bank.count("Accounts") == 2)
        }
    }

    @Test func neverCachesIndefinitelyAndTheGlobalDefaultAppliesLast() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(ProfileQuery())
            fixture.clock.advance(by: 10 * 86_400)
            #expect(try await fixture.client.fetch(ProfileQuery(), timeout: .never).source == .cache)
            #expect(try await fixture.client.fetch(ProfileQuery()).source == .network)
            _ = try await fixture.client.fetch(OtherProfileQuery())
            fixture.clock.advance(by: 299)
            #expect(try await fixture.client.fetch(OtherProfileQuery()).source == .cache)
            fixture.clock.advance(by: 2)
            #expect(try await fixture.client.fetch(OtherProfileQuery()).source == .network)
        }
    }

    @Test func networkOnlyAlwaysAsksAndStores() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .fetchIgnoringCacheData)
            bank.setBalance(42, of: "100")
            let second = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .fetchIgnoringCacheData)
            #expect(second.source == .network && second.balance == 42)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch).balance == 42)
            #expect(bank.count("AccountBalance") == 2)
        }
    }

    @Test func cacheOnlyMissIsAnErrorAndNeverARequest() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            fixture.clock.advance(by: 31)
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            #expect(bank.count("AccountBalance") == 1)
        }
    }

    @Test func noCacheWritesNothing() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let result = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .fetchIgnoringCacheCompletely)
            #expect(result.balance == 1_000)
            #expect(try fixture.client.cache.store.usage().count == 0)
        }
    }

    @Test func cacheAndNetworkDeliversTheCachedResultThenTheServers() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            bank.setBalance(7, of: "100")
            let quick = try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataAndFetch)
            #expect(quick.source == .cache && quick.balance == 1_000)
            var results: [GraphQLResult] = []
            for await event in fixture.client.watch(BalanceQuery(id: "100"), policy: .returnCacheDataAndFetch) {
                results.append(try event.get())
                if results.count == 2 { break }
            }
            #expect(results.first?.source == .cache)
            #expect(results.last?.source == .network && results.last?.balance == 7)
        }
    }

    // MARK: De-duplication and clearing during a fetch

    @Test func identicalConcurrentQueriesReachTheServerOnce() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let gate = AsyncGate()
            bank.state.withLock { $0.gate = gate }
            let client = fixture.client
            let results = Task {
                try await withThrowingTaskGroup(of: Int?.self) { group in
                    for _ in 0..<5 {
                        group.addTask { try await client.fetch(BalanceQuery(id: "100"), policy: .fetchIgnoringCacheData).balance }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await waitUntil("5 callers sharing one request") { client.inFlight.waiterCount == 5 && bank.count("AccountBalance") == 1 }
            gate.open()
            #expect(try await results.value == Array(repeating: 1_000, count: 5))
            #expect(bank.count("AccountBalance") == 1)
        }
    }

    @Test func aClearDuringAFetchKeepsTheLateResponseOut() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let gate = AsyncGate()
            bank.state.withLock { $0.gate = gate }
            let pending = Task { try await fixture.client.fetch(BalanceQuery(id: "100")) }
            try await waitUntil("the query reached the bank") { bank.count("AccountBalance") == 1 }
            let report = await fixture.unified.clearAllCaches()
            #expect(report.isComplete)
            gate.open()
            #expect(try await pending.value.balance == 1_000)
            #expect(try fixture.client.cache.store.usage().count == 0)
        }
    }

    // MARK: Errors

    @Test func anErrorsArrayKeepsEachMessagePathAndThePartialData() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            do throws(APIError) {
                _ = try await fixture.client.fetch(BrokenQuery())
                Issue.record("expected an error")
            } catch .graphQL(let failure) {
                #expect(failure.errors.map(\.message) == ["broken on purpose"])
                #expect(failure.errors.first?.pathDescription == "broken")
                #expect(failure.errors.first?.code == "BROKEN")
                #expect(failure.data?["me"]?["id"] == .string("u1"))
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(try fixture.client.cache.store.usage().count == 0)
        }
    }

    @Test func serverFailuresAndUnauthorizedAreTyped() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            let events = fixture.client.authEvents.stream()
            bank.state.withLock { $0.failWith = 500 }
            await #expect(throws: APIError.status(code: 500, body: Data(#"{"message":"failure on demand"}"#.utf8))) {
                try await fixture.client.fetch(BalanceQuery(id: "100"))
            }
            bank.state.withLock { $0.failWith = 401 }
            await #expect(throws: APIError.unauthorized(body: Data(#"{"message":"failure on demand"}"#.utf8))) {
                try await fixture.client.fetch(BalanceQuery(id: "100"))
            }
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next()?.kind == .unauthorized)
        }
    }

    @Test func malformedBodiesAndDroppedConnectionsAreTypedErrors() async throws {
        let transport = RecordingTransport()
        transport.stub(.post, "/graphql", status: 200, body: Data(#"{"data": {"account": "#.utf8))
        transport.stub(.post, "/graphql", error: .connectionLost(reason: "dropped"))
        let fixture = try GraphQLFixture(endpoint: try #require(URL(string: "http://bank.test/graphql")), transport: transport)
        do {
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            Issue.record("expected a decoding error")
        } catch {
            guard case .decoding = error else {
                Issue.record("expected .decoding, got \(error)")
                return
            }
        }
        await #expect(throws: APIError.transport(.connectionLost(reason: "dropped"))) {
            try await fixture.client.fetch(BalanceQuery(id: "100"))
        }
    }

    @Test func offlineServesStaleDataMarkedStale() async throws {
        let transport = RecordingTransport()
        transport.stub(
            .post, "/graphql", status: 200,
            body: Data(#"{"data":{"__typename":"Query","account":{"__typename":"Account","id":"100","balance":5}}}"#.utf8))
        transport.stub(.post, "/graphql", error: .offline(reason: "no route"))
        let fixture = try GraphQLFixture(endpoint: try #require(URL(string: "http://bank.test/graphql")), transport: transport)
        _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
        fixture.clock.advance(by: 60)
        let stale = try await fixture.client.fetch(BalanceQuery(id: "100"))
        #expect(stale.isStale && stale.source == .cache && stale.balance == 5)
        await #expect(throws: APIError.transport(.offline(reason: "no route"))) {
            try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .fetchIgnoringCacheData)
        }
    }

    @Test func aMissingVariableOrABadDocumentFailsBeforeAnyRequest() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            await #expect(throws: APIError.invalidOperation(.missingVariable("id", operation: "AccountBalance"))) {
                try await fixture.client.fetch(UnboundBalanceQuery())
            }
            do throws(APIError) {
                _ = try await fixture.client.fetch(MalformedQuery())
                Issue.record("expected a syntax error")
            } catch .invalidOperation(.syntax(message: _, line: let line, column: let column)) {
                #expect(line == 1 && column > 1)
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(bank.operations.isEmpty)
        }
    }

    @Test func aCorruptRecordIsDroppedAndRefetched() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            try fixture.client.cache.store.merge([
                RootKey.query: NormalizedRecord(
                    fields: [#"account(id:"100")"#: .value(.string("garbage"))], writtenAt: [#"account(id:"100")"#: fixture.clock.now()])
            ])
            let result = try await fixture.client.fetch(BalanceQuery(id: "100"))
            #expect(result.source == .network && result.balance == 1_000)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .cache)
        }
    }

    // MARK: Clearing

    @Test func clearingAnAccountIsExactAndItsQueriesRefetch() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try await fixture.client.fetch(BalanceQuery(id: "1002"))
            _ = try await fixture.client.fetch(ProfileQuery())
            let report = await fixture.unified.clearCache(forAccountId: "100")
            #expect(report.succeeded.contains("graphql"))
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            #expect(try await fixture.client.fetch(BalanceQuery(id: "1002"), policy: .returnCacheDataDontFetch).balance == 5_000)
            #expect(try await fixture.client.fetch(ProfileQuery(), policy: .returnCacheDataDontFetch).source == .cache)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .network)
        }
    }

    @Test func clearingOneQueryOrOneObjectAndEverything() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            _ = try await fixture.client.fetch(ProfileQuery())
            try await fixture.client.clear(ProfileQuery())
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(ProfileQuery(), policy: .returnCacheDataDontFetch)
            }
            try await fixture.client.removeObject(forKey: "Account:100")
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            let report = await fixture.unified.clearAllCaches()
            #expect(report.isComplete && report.succeeded == ["graphql"])
            #expect(try fixture.client.cache.store.usage().count == 0)
            let statistics = await fixture.unified.statistics()
            // Two cold fetches, two cache-only reads after the clears, one fetch after them.
            #expect(statistics.first?.counts.misses == 5 && statistics.first?.counts.hits == 0)
        }
    }
}

struct OtherProfileQuery: GraphQLQuery {
    static let document = "query OtherProfile { me { name } }"
}

struct UnboundBalanceQuery: GraphQLQuery {
    static let document = BalanceQuery.document
}

struct MalformedQuery: GraphQLQuery {
    static let document = "query Broken { account(id: ) }"
}

extension Result {
    /// The success value, or `nil`.
    var success: Success? { try? get() }
}

@Suite(.timeLimit(.minutes(10))) struct GraphQLUserIsolationTests {
    @Test func anotherUsersRequestNeverReadsThePreviousUsersData() async throws {
        try await withBank { bank in
            let fixture = try GraphQLFixture(endpoint: bank.endpoint)
            _ = try await fixture.client.fetch(BalanceQuery(id: "100"))
            fixture.tokens.set(Credentials(accessToken: "token-b", userId: "user-b"))
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
            #expect(try fixture.client.cache.store.usage().count == 0)
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .network)
            // Bob's own data stays while Bob is signed in.
            #expect(try await fixture.client.fetch(BalanceQuery(id: "100")).source == .cache)
            fixture.tokens.set(nil)
            await #expect(throws: APIError.notCached()) {
                try await fixture.client.fetch(BalanceQuery(id: "100"), policy: .returnCacheDataDontFetch)
            }
        }
    }
}

@Suite(.timeLimit(.minutes(10))) struct GraphQLResultDecodingTests {
    struct Balance: Decodable, Equatable {
        struct Account: Decodable, Equatable {
            var id: String
            var balance: Int
        }
        var account: Account
    }

    @Test func decodesIntoTheCallersTypeOrNamesThePath() throws {
        let result = GraphQLResult(
            data: ["account": ["__typename": "Account", "id": "1", "balance": 5]], source: .cache, freshness: .fetched(at: .distantPast))
        #expect(try result.decode(Balance.self) == Balance(account: .init(id: "1", balance: 5)))
        let wrong = GraphQLResult(data: ["account": ["id": "1", "balance": "five"]], source: .cache, freshness: .fetched(at: .distantPast))
        #expect(throws: APIError.self) { try wrong.decode(Balance.self) }
        do {
            _ = try wrong.decode(Balance.self)
        } catch {
            guard case .decoding(let path, _) = error else {
                Issue.record("expected .decoding, got \(error)")
                return
            }
            #expect(path == "account.balance")
        }
    }
}
