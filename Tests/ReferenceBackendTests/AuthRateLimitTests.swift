import APICore
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import SessionKit
import Testing

@testable import ReferenceBackend

/// `/auth/login` and `/auth/validate` are limited per client (REQ AUTH-6), and the clients honour the
/// 429's `Retry-After` (REQ OBS-3), over real HTTP with the backend's clock driven by the test.
@Suite(.timeLimit(.minutes(10))) struct AuthRateLimitTests {
    static let retryAfter = HTTPField.Name("Retry-After")!
    static let login = #"{"email":"alice@example.com","password":"Password1"}"#

    /// A sleeper that moves the backend's clock instead of waiting, and records what it was asked.
    final class ClockSleeper: Sleeper {
        let clock: ManualClock
        private let recorded = Locked<[Duration]>([])
        var delays: [Duration] { recorded.withLock { $0 } }
        init(_ clock: ManualClock) { self.clock = clock }
        func sleep(for duration: Duration) async throws {
            recorded.withLock { $0.append(duration) }
            clock.advance(by: Double(duration.components.seconds))
        }
    }

    static let wrongPassword = #"{"email":"alice@example.com","password":"Wrong1234"}"#

    @Test func failedSignInsPastTheLimitAnswer429WithRetryAfterBeforeThePasswordIsChecked() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(failedLogins: RateLimit(burst: 3, perSecond: 0.5), validation: RateLimit(burst: 100, perSecond: 1))
        try await withBackend(10, now: { clock.now() }, authRateLimits: limits) { backend in
            // Successful sign-ins spend nothing.
            for _ in 0..<5 { #expect(try await backend.send(.post, "/auth/login", json: Self.login).status == 200) }
            for _ in 0..<3 { #expect(try await backend.send(.post, "/auth/login", json: Self.wrongPassword).status == 401) }
            // Now even the right password is refused: guessing is slowed, whatever the guess.
            let limited = try await backend.send(.post, "/auth/login", json: Self.login)
            #expect(limited.status == 429)
            #expect(limited.headerFields[Self.retryAfter] == "2")
            #expect(try JSONValue.parse(limited.body)["error"]?["code"]?.stringValue == "RATE_LIMITED")
            // Other routes were never limited; two seconds later one attempt is allowed again.
            #expect(try await backend.get("/api/funnels/catalog").status == 200)
            clock.advance(by: 2)
            #expect(try await backend.send(.post, "/auth/login", json: Self.wrongPassword).status == 401)
            #expect(try await backend.send(.post, "/auth/login", json: Self.login).status == 429)
        }
    }

    /// The attack of the security review: 50 wrong passwords at once must not pass on one token each.
    @Test func fiftyParallelWrongPasswordsGetNoMoreGuessesThanTheBurst() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(failedLogins: RateLimit(burst: 3, perSecond: 0.01))
        try await withBackend(10, now: { clock.now() }, authRateLimits: limits) { backend in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await backend.send(
                            .post, "/auth/login", json: #"{"email":"alice@example.com","password":"Guess\#(index)xyzW9"}"#
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count == 3, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 47)
        }
    }

    /// Guesses spread over many addresses still slow down on one account.
    @Test func anAccountIsLimitedWhateverTheClientAddress() {
        let limiter = RateLimiter(
            limit: RateLimit(burst: 2, perSecond: 0.01), accountLimit: RateLimit(burst: 2, perSecond: 0.01),
            now: { Date(timeIntervalSince1970: 0) })
        #expect(limiter.take(["client:10.0.0.1", "account:alice@example.com"]) == nil)
        #expect(limiter.take(["client:10.0.0.2", "account:alice@example.com"]) == nil)
        // A third address, its own bucket full, is refused for Alice's account, and its token is not taken.
        #expect(limiter.take(["client:10.0.0.3", "account:alice@example.com"]) != nil)
        #expect(limiter.take(["client:10.0.0.3", "account:bob@example.com"]) == nil)
        #expect(limiter.take(["client:10.0.0.3", "account:carol@example.com"]) == nil)
        #expect(limiter.take(["client:10.0.0.3", "account:dave@example.com"]) != nil)
        // A successful sign-in gives its tokens back.
        limiter.giveBack(["client:10.0.0.1", "account:alice@example.com"])
        #expect(limiter.take(["client:10.0.0.1", "account:alice@example.com"]) == nil)
    }

    /// Security review two, finding 6, the attack as reproduced: 30 wrong passwords from 30 addresses, then
    /// the owner's right one from a fresh address, is let through; a stranger who empties the account's
    /// higher ceiling still cannot keep out a client the account knows.
    @Test func aStrangerCannotLockTheOwnerOut() {
        let limits = AuthRateLimits()
        let limiter = RateLimiter(
            limit: limits.failedLogins, accountLimit: limits.failedLoginsPerAccount, now: { Date(timeIntervalSince1970: 0) })
        let alice = "alice@example.com"
        // The owner signed in from home once: the route remembers the client.
        #expect(limiter.take(limiter.loginKeys(client: "client:10.0.0.1", account: alice)) == nil)
        limiter.giveBack(limiter.loginKeys(client: "client:10.0.0.1", account: alice))
        limiter.remember(client: "client:10.0.0.1", account: alice)
        for index in 0..<30 {
            #expect(limiter.take(limiter.loginKeys(client: "client:127.0.0.\(index + 2)", account: alice)) == nil)
        }
        #expect(limiter.take(limiter.loginKeys(client: "client:127.0.0.99", account: alice)) == nil, "the owner from a fresh address")
        // Past the account's ceiling, strangers are refused for the account…
        for index in 0..<(limits.failedLoginsPerAccount.burst - 31) {
            _ = limiter.take(limiter.loginKeys(client: "client:192.0.2.\(index)", account: alice))
        }
        #expect(limiter.take(limiter.loginKeys(client: "client:198.51.100.1", account: alice)) != nil)
        // …but the known client is held by its own limit only.
        #expect(limiter.loginKeys(client: "client:10.0.0.1", account: alice) == ["client:10.0.0.1"])
        #expect(limiter.take(limiter.loginKeys(client: "client:10.0.0.1", account: alice)) == nil)
    }

    /// An account remembers its own clients, at most 16, newest kept: a stranger's endless sign-ins to their own
    /// account never make the owner's account forget the owner's device (security review, a fourth read).
    @Test func anotherAccountsSignInsNeverMakeAnAccountForgetItsClients() {
        let limiter = RateLimiter(limit: RateLimit(burst: 10, perSecond: 0.2), now: { Date(timeIntervalSince1970: 0) })
        limiter.remember(client: "device:owner", account: "alice@example.com")
        for index in 0..<5_000 { limiter.remember(client: "device:\(index)", account: "bob@example.com") }
        #expect(limiter.isKnown(client: "device:owner", account: "alice@example.com"))
        #expect(!limiter.isKnown(client: "device:owner", account: "bob@example.com"), "a client is known to its account only")
        #expect(limiter.isKnown(client: "device:4999", account: "bob@example.com"))
        #expect(!limiter.isKnown(client: "device:4983", account: "bob@example.com"), "past 16, the account's oldest goes")
    }

    /// The route's wiring, over HTTP: a client becomes known to an account only by signing in to it. Unknown,
    /// its failures spend the account's bucket and the right password then waits; known, they do not.
    @Test func onlyASuccessfulSignInMakesAClientKnownToTheAccount() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(
            failedLogins: RateLimit(burst: 100, perSecond: 0.01), failedLoginsPerAccount: RateLimit(burst: 3, perSecond: 0.01))
        try await withBackend(5, now: { clock.now() }, authRateLimits: limits) { (backend: BackendFixture) async throws in
            // Alice's account from a client it does not know: three failures empty the account's bucket.
            for _ in 0..<3 { #expect(try await backend.send(.post, "/auth/login", json: Self.wrongPassword).status == 401) }
            #expect(try await backend.send(.post, "/auth/login", json: Self.login).status == 429)
            // Bob's account from a client that signed in to it first: its failures spend only its own bucket.
            let bob = #"{"email":"bob@example.com","password":"Password2"}"#
            let bobWrong = #"{"email":"bob@example.com","password":"Wrong1234"}"#
            #expect(try await backend.send(.post, "/auth/login", json: bob).status == 200)
            for _ in 0..<3 { #expect(try await backend.send(.post, "/auth/login", json: bobWrong).status == 401) }
            #expect(try await backend.send(.post, "/auth/login", json: bob).status == 200)
        }
    }

    @Test func validationPastItsLimitAnswers429() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(validation: RateLimit(burst: 2, perSecond: 1))
        try await withBackend(10, now: { clock.now() }, authRateLimits: limits) { backend in
            for _ in 0..<2 { #expect(try await backend.get("/auth/validate", token: "anything").status == 401) }
            let limited = try await backend.get("/auth/validate", token: "anything")
            #expect(limited.status == 429 && limited.headerFields[Self.retryAfter] == "1")
        }
    }

    @Test func aRateLimitedSignInIsATypedErrorWithTheWaitAndTheSessionStaysSignedOut() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(failedLogins: RateLimit(burst: 1, perSecond: 0.2))
        try await withBackend(10, now: { clock.now() }, authRateLimits: limits) { backend in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "rate-limit-test")
            logger.logLevel = .critical
            let environment = CacheEnvironment(logger: logger, cachesDirectory: directory.url)
            let session = SessionManager(
                configuration: .init(
                    baseURL: backend.backend.baseURL, tokenStore: FileTokenStore(url: directory.url.appendingPathComponent("token.json")),
                    caches: UnifiedCacheManager(timeouts: environment.timeouts, logger: logger), authEvents: AuthEvents(),
                    requestTimeout: TestDeadline.request, logger: logger))
            await #expect(throws: SignInError.rejected(message: "Wrong e-mail or password.")) {
                try await session.signIn(email: "alice@example.com", password: "Wrong1234")
            }
            await #expect(throws: SignInError.rateLimited(retryAfter: .seconds(5))) {
                try await session.signIn(email: "alice@example.com", password: "Password1")
            }
            #expect(session.current.user == nil)
        }
    }

    @Test func theRESTClientWaitsTheRetryAfterOnTheInjectedClockThenSucceeds() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(validation: RateLimit(burst: 1, perSecond: 0.25))
        try await withBackend(10, now: { clock.now() }, authRateLimits: limits) { backend in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let sleeper = ClockSleeper(clock)
            let tokens = StaticTokenProvider(try await backend.credentials())
            let rest = RESTClient(
                configuration: .init(
                    baseURL: backend.backend.baseURL, environment: CacheEnvironment(clock: clock, cachesDirectory: directory.url),
                    tokenProvider: tokens, retry: RetryPolicy(maxAttempts: 2, maxRetryAfter: .seconds(10)), sleeper: sleeper))
            let validate = APIRequest<Data>(path: "/auth/validate")
            #expect(await Self.status(of: validate, through: rest) == 200)
            // The second is limited (Retry-After: 4); the client waits 4 s on the clock and is let through.
            #expect(await Self.status(of: validate, through: rest) == 200)
            #expect(sleeper.delays == [.seconds(4)])
            // A wait longer than the client accepts is not waited for: the caller gets the 429 at once.
            let impatient = RESTClient(
                configuration: .init(
                    baseURL: backend.backend.baseURL, environment: CacheEnvironment(clock: clock, cachesDirectory: directory.url),
                    retry: RetryPolicy(maxAttempts: 2, maxRetryAfter: .seconds(1)), sleeper: sleeper))
            #expect(await Self.status(of: validate, through: impatient) == 429)
            #expect(sleeper.delays == [.seconds(4)])
        }
    }

    /// The HTTP status `request` ended with (its error's, for a non-2xx).
    static func status(of request: APIRequest<Data>, through client: RESTClient) async -> Int? {
        do {
            return try await client.send(request).status
        } catch {
            switch error {
            case .unauthorized: return 401
            case .server(let server): return server.status
            case .status(let code, _): return code
            default: return nil
            }
        }
    }
}
