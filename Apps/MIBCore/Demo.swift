import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import Synchronization

/// `mib demo`: the seeds' story against a freshly started reference backend, through the same
/// clients the kits use: sign in, the catalog page by page, the reload served from the cache and then
/// revalidated with 304s, the dashboard, a payment seen everywhere, an account switch, an expired
/// session, and a logout that leaves every cache empty. Each step is reported as it happens.
public struct Demo {
    /// One step of the timeline.
    public struct Step: Codable, Sendable, Hashable {
        /// What happened.
        public var name: String
        /// `hit`, `miss`, `304`, `network`, `cleared`, `expired`, … with counts.
        public var outcome: String
        /// How long it took, in milliseconds.
        public var milliseconds: Double
    }

    /// The closing report.
    public struct Report: Codable, Sendable, Hashable {
        /// Where the backend listened.
        public var backend: String
        /// Every step, in order.
        public var steps: [Step]
        /// Cache hits over cache lookups, over every store.
        public var hitRate: Double
        /// Requests answered without the network.
        public var requestsSaved: Int
        /// Body bytes not transferred (cache hits and 304s).
        public var bytesSaved: Int
        /// 304 revalidations.
        public var revalidations: Int
        /// Latency percentiles in milliseconds, by feature and source.
        public var latency: [Latency]
        /// The balance of account 100 before and after the payment, and the GraphQL requests the
        /// payment took (the mutation and its refetches).
        public var payment: Payment
        /// Milliseconds `clearAllCaches()` took at logout.
        public var logoutClearMilliseconds: Double
        /// Entries left in every store after logout (0 is the rule).
        public var entriesAfterLogout: Int

        /// A latency line.
        public struct Latency: Codable, Sendable, Hashable {
            public var feature: String
            public var source: String
            public var count: Int
            public var p50: Double
            public var p90: Double
            public var p99: Double
        }

        /// What the payment changed.
        public struct Payment: Codable, Sendable, Hashable {
            public var balanceBefore: Int
            public var balanceAfter: Int
            public var balanceSeenByWatcher: Int
            public var graphQLRequests: Int
        }
    }

    /// Runs the story against a backend whose data lives in `directory`; `progress` sees each step.
    public static func run(in directory: URL, progress: @escaping @Sendable (Step) -> Void = { _ in }) async throws -> Report {
        var quiet = Logger(label: "mib.demo")
        quiet.logLevel = .critical
        let backend = try await ReferenceBackend.start(.init(
            databaseURL: directory.appendingPathComponent("backend.sqlite"), logger: quiet))
        do {
            let report = try await Story(backend: backend, directory: directory, logger: quiet, progress: progress).run()
            await backend.stop()
            return report
        } catch {
            await backend.stop()
            throw error
        }
    }
}

/// The demo's wiring and steps.
private final class Story: Sendable {
    let backend: ReferenceBackend
    let clock = DemoClock()
    let session = DemoSession()
    let transport = CountingTransport(URLSessionTransport())
    let environment: CacheEnvironment
    let unified: UnifiedCacheManager
    let rest: RESTClient
    let graphQL: GraphQLClient
    let progress: @Sendable (Demo.Step) -> Void
    let steps = Mutex<[Demo.Step]>([])

    init(backend: ReferenceBackend, directory: URL, logger: Logger, progress: @escaping @Sendable (Demo.Step) -> Void) throws {
        self.backend = backend
        self.progress = progress
        environment = CacheEnvironment(clock: clock, logger: logger,
                                       cachesDirectory: directory.appendingPathComponent("caches"))
        unified = UnifiedCacheManager(timeouts: environment.timeouts, logger: logger)
        let container = DependencyContainer(cacheManager: unified)
        try container.install([DemoAccountsKit()])
        try container.verify()
        let authEvents = AuthEvents()
        rest = RESTClient(configuration: .init(baseURL: backend.baseURL, transport: transport, environment: environment,
                                               tokenProvider: session, retry: .none, authEvents: authEvents))
        graphQL = GraphQLClient(configuration: .init(
            endpoint: backend.baseURL.appendingPathComponent("graphql"), transport: transport, environment: environment,
            tokenProvider: session, container: container, retry: .none, authEvents: authEvents))
        unified.register(rest.cacheParticipant)
        unified.register(graphQL)
    }

    func step(_ name: String, _ body: () async throws -> String) async throws {
        let started = ContinuousClock.now
        let outcome = try await body()
        let elapsed = ContinuousClock.now - started
        let step = Demo.Step(name: name, outcome: outcome, milliseconds: Self.milliseconds(elapsed))
        steps.withLock { $0.append(step) }
        progress(step)
    }

    /// Milliseconds, to two decimals.
    static func milliseconds(_ duration: Duration) -> Double {
        let value = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return (value * 100).rounded() / 100
    }

    func run() async throws -> Demo.Report {
        try await step("Sign in as alice@example.com") { try await signIn() }
        try await step("Load the catalog page by page") { try await loadCatalog() }
        try await step("Reload the catalog (fresh: from the cache)") { try await loadCatalog() }
        clock.advance(by: 301)
        try await step("Reload five minutes later (stale: revalidated)") { try await loadCatalog() }

        try await step("Open the dashboard") { try await dashboardOutcome(policy: .default) }
        try await step("Open the dashboard again") { try await dashboardOutcome(policy: .default) }
        try await step("Open both accounts") {
            let first = try await graphQL.fetch(DemoAccountQuery(id: "100"))
            let second = try await graphQL.fetch(DemoAccountQuery(id: "1002"))
            return "\(first.source == .cache ? "hit" : "network"), \(second.source == .cache ? "hit" : "network")"
        }
        let before = try await balance(policy: .default)
        var watch = graphQL.watch(DemoAccountQuery(id: "100"), policy: .returnCacheDataDontFetch).makeAsyncIterator()
        _ = await watch.next()
        let requestsBefore = transport.count("/graphql")
        var after = before
        try await step("Pay 12.50 from account 100") {
            let result = try await graphQL.perform(DemoPayment(accountId: "100", amount: 1_250))
            _ = await result.background?.value
            after = try await balance(policy: .returnCacheDataDontFetch)
            return "balance \(Self.euros(before)) → \(Self.euros(after)) from the cache; \(result.critical.count) critical refetch"
        }
        let seen = (try? await watch.next()?.get()).flatMap { $0.data["account"]?["balance"]?.intValue } ?? before
        let paymentRequests = transport.count("/graphql") - requestsBefore

        try await step("Switch away from account 100") {
            _ = await unified.clearCache(forAccountId: "100")
            let gone = (try? await graphQL.fetch(DemoAccountQuery(id: "100"), policy: .returnCacheDataDontFetch)) == nil
            let kept = (try? await graphQL.fetch(DemoAccountQuery(id: "1002"), policy: .returnCacheDataDontFetch)) != nil
            return "account 100 \(gone ? "cleared" : "STILL CACHED"), account 1002 \(kept ? "kept" : "fetched again")"
        }
        try await step("The server expires the session") { try await expireSession() }
        try await step("Sign in again") { try await signIn() }
        _ = try await dashboardOutcome(policy: .default)
        var clearMilliseconds = 0.0
        try await step("Log out") {
            _ = try? await rest.send(APIRequest<Data>(method: .post, path: "/auth/logout"))
            session.set(nil)
            let started = ContinuousClock.now
            let report = await unified.clearAllCaches()
            clearMilliseconds = Self.milliseconds(ContinuousClock.now - started)
            return report.isComplete ? "every cache cleared in \(clearMilliseconds) ms" : "FAILED: \(report.failed)"
        }
        let left = await unified.statistics().reduce(0) { $0 + $1.usage.count }
        return report(payment: .init(balanceBefore: before, balanceAfter: after, balanceSeenByWatcher: seen,
                                     graphQLRequests: paymentRequests),
                      clear: clearMilliseconds, left: left)
    }

    func signIn() async throws -> String {
        let body = Data(#"{"email":"alice@example.com","password":"Password1"}"#.utf8)
        let response = try await rest.send(APIRequest<JSONValue>(method: .post, path: "/auth/login",
                                                                 headerFields: [.contentType: "application/json"], body: body))
        let data = response.value["data"]
        guard let token = data?["token"]?.stringValue, let user = data?["user"]?["id"]?.stringValue else {
            throw DemoError.unexpected("the login answer has no token")
        }
        session.set(Credentials(accessToken: token, userId: user))
        return "signed in as \(user)"
    }

    func loadCatalog() async throws -> String {
        var cursor: String?
        var sources: [ResponseSource: Int] = [:]
        var funnels = 0
        repeat {
            var query = [URLQueryItem(name: "limit", value: "50")]
            if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let response = try await rest.send(APIRequest<JSONValue>(path: "/api/funnels/catalog", query: query, feature: "catalog"))
            sources[response.source, default: 0] += 1
            let page = response.value["data"]
            funnels += (page?["pillars"]?.arrayValue ?? []).reduce(0) { $0 + ($1["funnels"]?.arrayValue?.count ?? 0) }
            funnels += page?["uncategorized_funnels"]?.arrayValue?.count ?? 0
            cursor = page?["pagination"]?["nextCursor"]?.stringValue
        } while cursor != nil
        let parts = [(ResponseSource.cache, "hit"), (.revalidated, "304"), (.network, "network")].compactMap { source, label in
            sources[source].map { "\($0) \(label)" }
        }
        return "\(funnels) funnels: " + parts.joined(separator: ", ")
    }

    func dashboardOutcome(policy: CachePolicy) async throws -> String {
        let result = try await graphQL.fetch(DemoDashboardQuery(), policy: policy)
        let total = result.data["dashboard"]?["totalBalance"]?.intValue ?? 0
        return "\(result.source == .cache ? "hit" : "network"): total \(Self.euros(total))"
    }

    func balance(policy: CachePolicy) async throws -> Int {
        let result = try await graphQL.fetch(DemoAccountQuery(id: "100"), policy: policy)
        return result.data["account"]?["balance"]?.intValue ?? 0
    }

    func expireSession() async throws -> String {
        let events = rest.authEvents.stream()
        _ = try await transport.send(TransportRequest(method: .post, url: backend.baseURL.appendingPathComponent("admin/sessions/u1/expire"),
                                                      headerFields: [:], body: nil, timeout: .seconds(10)))
        do {
            _ = try await graphQL.fetch(DemoDashboardQuery(), policy: .fetchIgnoringCacheData)
            return "UNEXPECTED: the request still succeeded"
        } catch {
            var iterator = events.makeAsyncIterator()
            guard let event = await iterator.next(), event.kind == .unauthorized else { return "no auth event" }
            session.set(nil)
            let report = await unified.clearAllCaches()
            return "401 → session expired, \(report.succeeded.count) caches cleared"
        }
    }

    func report(payment: Demo.Report.Payment, clear: Double, left: Int) -> Demo.Report {
        let counts = environment.metrics.snapshot().reduce(CacheStatistics(store: "all", feature: "all"), +)
        let latency = environment.metrics.latencySnapshot().map { summary in
            Demo.Report.Latency(feature: summary.feature, source: summary.source.rawValue, count: summary.count,
                                p50: Self.milliseconds(summary.p50), p90: Self.milliseconds(summary.p90),
                                p99: Self.milliseconds(summary.p99))
        }
        return Demo.Report(backend: backend.baseURL.absoluteString, steps: steps.withLock { $0 }, hitRate: counts.hitRate,
                           requestsSaved: counts.requestsSaved, bytesSaved: counts.bytesSaved,
                           revalidations: counts.revalidations, latency: latency, payment: payment,
                           logoutClearMilliseconds: clear, entriesAfterLogout: left)
    }

    static func euros(_ cents: Int) -> String {
        String(format: "%.2f €", Double(cents) / 100)
    }
}

/// Why the demo stopped.
public enum DemoError: Error, Sendable, CustomStringConvertible {
    /// The backend answered something the story did not expect.
    case unexpected(String)

    /// The reason.
    public var description: String {
        switch self {
        case .unexpected(let reason): "demo: \(reason)"
        }
    }
}
