import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import Testing

@testable import APICore
@testable import APICoreGraphQL
@testable import APICoreREST

/// Error and retry telemetry (REQ OBS-1), the error-rate alert (OBS-2) and `Retry-After` (OBS-3).
@Suite(.timeLimit(.minutes(10))) struct TelemetryTests {
    /// Keeps every event a sink receives.
    final class EventRecorder: APITelemetrySink {
        private let recorded = Locked<[APITelemetryEvent]>([])
        var events: [APITelemetryEvent] { recorded.withLock { $0 } }
        var errors: [APIErrorEvent] { events.compactMap { if case .error(let event) = $0 { event } else { nil } } }
        var retries: [APIRetryEvent] { events.compactMap { if case .retry(let event) = $0 { event } else { nil } } }
        func record(_ event: APITelemetryEvent) { recorded.withLock { $0.append(event) } }
    }

    struct Fixture {
        let clock = ManualClock()
        let sleeper = RecordingSleeper()
        let transport = RecordingTransport()
        let sink = EventRecorder()
        let metrics = TestMetrics()
        let directory: TemporaryDirectory
        let telemetry: APITelemetry
        let rest: RESTClient
        let graphQL: GraphQLClient

        init(retry: RetryPolicy = .none) throws {
            directory = try TemporaryDirectory()
            let environment = CacheEnvironment(clock: clock, cachesDirectory: directory.url)
            telemetry = APITelemetry(clock: clock, sinks: [sink], metrics: metrics)
            let url = try #require(URL(string: "https://api.example.com"))
            let tokens = StaticTokenProvider(Credentials(accessToken: "eyJhbGciOi.secret-token", userId: "alice@example.com"))
            rest = RESTClient(
                configuration: .init(
                    baseURL: url, transport: transport, environment: environment, tokenProvider: tokens, retry: retry,
                    sleeper: sleeper, telemetry: telemetry))
            graphQL = GraphQLClient(
                configuration: .init(
                    endpoint: url.appendingPathComponent("graphql"), transport: transport, environment: environment,
                    tokenProvider: tokens, retry: retry, sleeper: sleeper, telemetry: telemetry))
        }
    }

    struct Payment: GraphQLMutation {
        static let document = "mutation MakePayment($iban: String!) { makePayment(iban: $iban) { id } }"
        var variables: [String: JSONValue] { ["iban": .string("DE89370400440532013000")] }
    }

    @Test func endpointTemplatesKeepRouteNamesAndNothingElse() {
        #expect(EndpointTemplate.of(path: "/api/accounts/1002/transactions?after=alice@example.com") == "/api/accounts/{id}/transactions")
        #expect(EndpointTemplate.of(path: "/users/alice@example.com/profile") == "/users/{id}/profile")
        #expect(EndpointTemplate.of(path: "/files/3F2504E0-4F89-11D3-9A0C-0305E82C3301") == "/files/{id}")
        #expect(EndpointTemplate.of(path: "/iban/DE89370400440532013000") == "/{id}/{id}", "an undeclared route is over-redacted")
        // A user name in lower case is no route name (security review two, finding 7).
        #expect(EndpointTemplate.of(path: "/users/alice/messages") == "/users/{id}/messages")
        #expect(EndpointTemplate.of(path: "/api/bob-smith") == "/api/{id}")
        // A kit declares its own routes.
        EndpointTemplate.declareRouteNames(["wallets", "Not-A-Route", "x y"])
        #expect(EndpointTemplate.of(path: "/wallets/alice") == "/wallets/{id}")
        #expect(EndpointTemplate.of(path: "/Not-A-Route") == "/{id}")
        #expect(EndpointTemplate.of(path: "/api/funnels/catalog") == "/api/funnels/catalog")
        #expect(EndpointTemplate.of(path: "/") == "/")
        #expect(EndpointTemplate.graphQL(path: "/graphql", operation: "AccountBalance") == "/graphql#AccountBalance")
        #expect(EndpointTemplate.graphQL(path: "/graphql", operation: "alice@example.com") == "/graphql#{op}")
    }

    @Test func noEmailTokenOrAccountIdReachesAnySinkOrMetric() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let secrets = ["alice@example.com", "secret-token", "eyJhbGciOi", "DE89370400440532013000", "1002"]
        let body =
            #"{"success":false,"error":{"code":"alice@example.com","message":"Bearer eyJhbGciOi.secret-token for DE89370400440532013000"}}"#
        fixture.transport.stub(.get, "/api/accounts/1002", status: 400, body: Data(body.utf8))
        fixture.transport.stub(.get, "/api/users/alice@example.com", status: 500, body: Data(body.utf8))
        fixture.transport.stub(.get, "/api/iban", error: .offline(reason: "no route to DE89370400440532013000"))
        let graphQLErrors =
            #"{"errors":[{"message":"alice@example.com has no funds in DE89370400440532013000","extensions":{"code":"INSUFFICIENT_FUNDS"}}]}"#
        fixture.transport.stub(.post, "/graphql", status: 200, body: Data(graphQLErrors.utf8))
        for path in ["/api/accounts/1002?owner=alice@example.com", "/api/users/alice@example.com", "/api/iban?iban=DE89370400440532013000"]
        {
            await #expect(throws: APIError.self) { try await fixture.rest.send(APIRequest<Data>(path: path)) }
        }
        await #expect(throws: APIError.self) { try await fixture.graphQL.perform(Payment()) }

        let errors = fixture.sink.errors
        // The error envelope makes the 400 and the 500 `server` errors; its code, not a constant, is dropped.
        #expect(errors.map(\.kind) == ["server", "server", "transport.offline", "graphQL"])
        #expect(errors.map(\.endpoint) == ["/api/accounts/{id}", "/api/users/{id}", "/api/{id}", "/graphql#MakePayment"])
        #expect(errors.map(\.status) == [400, 500, nil, nil])
        #expect(errors.map(\.code) == [nil, nil, nil, "INSUFFICIENT_FUNDS"])
        let exported = fixture.sink.events.map { "\($0)" } + fixture.metrics.counters.map { "\($0.label) \($0.dimensions)" }
        for secret in secrets {
            #expect(!exported.contains { $0.contains(secret) }, "\(secret) reached telemetry")
        }
        #expect(fixture.metrics.counterTotal(label: "api_errors_total") == 4)
        #expect(
            try fixture.metrics.expectCounter(
                "api_errors_total", [("kind", "server"), ("status", "400"), ("endpoint", "/api/accounts/{id}")]
            ).totalValue == 1)
        #expect(fixture.metrics.counterTotal(label: "api_requests_total") == 4)
    }

    @Test func everyRetryIsCountedWithItsOutcome() async throws {
        let fixture = try Fixture(retry: RetryPolicy(maxAttempts: 3))
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/flaky", status: 503)
        fixture.transport.stub(.get, "/flaky", status: 200, body: Data("{}".utf8))
        fixture.transport.stub(.get, "/down", status: 502)
        _ = try await fixture.rest.send(APIRequest<Data>(path: "/flaky"))
        await #expect(throws: APIError.self) { try await fixture.rest.send(APIRequest<Data>(path: "/down")) }
        #expect(fixture.sink.retries.map(\.outcome) == [.succeeded, .failed, .gaveUp])
        #expect(fixture.sink.retries.map(\.attempt) == [2, 2, 3])
        #expect(try fixture.metrics.expectCounter("api_retries_total", [("outcome", "gave_up")]).totalValue == 1)
        #expect(fixture.metrics.counterTotal(label: "api_requests_total") == 2)
    }

    @Test func theAlertFiresAboveFivePercentOfAFullWindowAndClearsWhenTheRateFalls() {
        let clock = ManualClock()
        let alert = ErrorRateAlert(clock: clock)
        // Too few requests say nothing, even all failing.
        for _ in 0..<19 { #expect(alert.record(failed: true) == nil) }
        #expect(!alert.evaluate().status.isFiring)
        // Five minutes later those are out of the window: 100 requests with exactly 5% failing do not fire.
        clock.advance(by: 301)
        for index in 0..<100 { alert.record(failed: index < 5) }
        #expect(!alert.evaluate().status.isFiring)
        // One more failure is above 5%.
        let fired = alert.record(failed: true)
        #expect(fired?.isFiring == true && fired?.failures == 6 && fired?.requests == 101)
        // The window slides with the clock: once the failures are older than 5 minutes, it clears.
        clock.advance(by: 200)
        for _ in 0..<10 { #expect(alert.record(failed: false) == nil) }
        #expect(alert.evaluate().status.isFiring)  // 6 of 111
        clock.advance(by: 101)
        let cleared = alert.evaluate()
        #expect(cleared.changed && !cleared.status.isFiring && cleared.status.requests == 10)
    }

    @Test func theAlertReachesTheSinksAndTheMetrics() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/down", status: 500)
        for _ in 0..<20 {
            await #expect(throws: APIError.self) { try await fixture.rest.send(APIRequest<Data>(path: "/down")) }
        }
        let alerts = fixture.sink.events.compactMap { if case .alert(let status) = $0 { status } else { nil } }
        #expect(alerts.count == 1 && alerts.first?.isFiring == true)
        #expect(try fixture.metrics.expectCounter("api_error_rate_alerts_total", [("state", "firing")]).totalValue == 1)
    }

    @Test func retryAfterIsWaitedThroughTheSleeperInSecondsOrAsADate() async throws {
        let fixture = try Fixture(retry: RetryPolicy(maxAttempts: 3))
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/limited", status: 429, headerFields: [HTTPField.Name("Retry-After")!: "7"])
        fixture.transport.stub(.get, "/limited", status: 200, body: Data("{}".utf8))
        let date = RevalidationAgeTests.httpDate(fixture.clock.now().addingTimeInterval(12))
        fixture.transport.stub(.get, "/busy", status: 503, headerFields: [HTTPField.Name("Retry-After")!: date])
        fixture.transport.stub(.get, "/busy", status: 200, body: Data("{}".utf8))
        _ = try await fixture.rest.send(APIRequest<Data>(path: "/limited"))
        _ = try await fixture.rest.send(APIRequest<Data>(path: "/busy"))
        #expect(fixture.sleeper.delays == [.seconds(7), .seconds(12)])
    }

    @Test func aRetryAfterLongerThanTheLimitIsNotWaitedFor() async throws {
        let fixture = try Fixture(retry: RetryPolicy(maxAttempts: 3, maxRetryAfter: .seconds(30)))
        defer { fixture.directory.remove() }
        fixture.transport.stub(.get, "/limited", status: 429, headerFields: [HTTPField.Name("Retry-After")!: "3600"])
        await #expect(throws: APIError.status(code: 429, body: Data())) { try await fixture.rest.send(APIRequest<Data>(path: "/limited")) }
        #expect(fixture.sleeper.delays.isEmpty)
        #expect(fixture.transport.requests.count == 1)
        #expect(fixture.sink.errors.map(\.kind) == ["rateLimited"])
    }
}
