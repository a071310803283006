import APICore
import APICoreGraphQL
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import SessionKit

/// `mib demo`: the product's story against a freshly started reference backend, through the same
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
        /// Milliseconds the logout took: the server told, every cache cleared, the token deleted.
        public var logoutClearMilliseconds: Double
        /// Entries left in every store after logout (0 is the rule).
        public var entriesAfterLogout: Int
        /// What telemetry measured: screens, the funnel and API errors.
        public var telemetry: Telemetry

        /// Screens' time-to-interactive by source, the funnel, and the API error rate.
        public struct Telemetry: Codable, Sendable, Hashable {
            /// Time-to-interactive in milliseconds, by the source that filled the screen.
            public var timeToInteractive: [String: [String: Double]]
            /// How many times each funnel stage was reached.
            public var funnel: [String: Int]
            /// Requests and failed requests in the error-rate window, and whether the alert fires.
            public var requests: Int
            public var failedRequests: Int
            public var alertFiring: Bool
        }

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

    /// Runs the story against `server`, or against a reference backend started for the run (its data in
    /// `directory`) when `server` is `nil`; the app's caches are in `directory` either way. `progress` sees
    /// each step. `Tools/Soak` runs it in a loop against one backend.
    public static func run(
        server: URL? = nil, in directory: URL, progress: @escaping @Sendable (Step) -> Void = { _ in }
    ) async throws -> Report {
        try await DemoComposition.withBackend(server, in: directory, logger: DemoComposition.quietLogger) { baseURL in
            try await Story(baseURL: baseURL, directory: directory, logger: DemoComposition.quietLogger, progress: progress).run()
        }
    }

    /// Runs the story on `app`, a composition that is signed out (as every story leaves it): `Tools/Soak` runs
    /// it in a loop on one app, as a long session in one process does.
    public static func run(app: DemoComposition, progress: @escaping @Sendable (Step) -> Void = { _ in }) async throws -> Report {
        try await Story(app: app, progress: progress).run()
    }
}

/// The demo's steps, over a ``DemoComposition``.
final class Story: Sendable {
    let app: DemoComposition
    let progress: @Sendable (Demo.Step) -> Void
    let steps = Locked<[Demo.Step]>([])
    var clock: DemoClock { app.clock }
    var transport: CountingTransport { app.transport }
    var unified: UnifiedCacheManager { app.unified }
    var rest: RESTClient { app.rest }
    var graphQL: GraphQLClient { app.graphQL }

    convenience init(baseURL: URL, directory: URL, logger: Logger, progress: @escaping @Sendable (Demo.Step) -> Void) throws {
        self.init(
            app: try DemoComposition(baseURL: baseURL, cachesDirectory: directory.appendingPathComponent("caches"), logger: logger),
            progress: progress)
    }

    init(app: DemoComposition, progress: @escaping @Sendable (Demo.Step) -> Void) {
        self.app = app
        self.progress = progress
    }

    func step(_ name: String, _ body: () async throws -> String) async throws {
        let started = ContinuousClock.now
        let outcome = try await body()
        let elapsed = ContinuousClock.now - started
        let step = Demo.Step(name: name, outcome: outcome, milliseconds: elapsed.milliseconds)
        steps.withLock { $0.append(step) }
        progress(step)
    }

    func run() async throws -> Demo.Report {
        try await step("Sign in as alice@example.com") { try await signIn() }
        try await step("Load the catalog page by page") { try await loadCatalog() }
        try await step("Reload the catalog (fresh: from the cache)") { try await loadCatalog() }
        clock.advance(by: 301)
        try await step("Reload five minutes later (stale: revalidated)") { try await loadCatalog() }
        try await step("Open a funnel and its definition, twice") {
            let slug = try await app.catalog.page(limit: 1).value.funnels.first?.slug ?? "funnel-1"
            var sources: [String] = []
            for _ in 0..<2 {
                let visit = app.screens.appeared("detail")
                let detail = try await app.catalog.funnel(slug: slug)
                app.screens.displayed(visit, from: detail.source == .network ? .network : .cache)
                app.screens.reached("detail")
                let definition = try await app.catalog.definition(slug: slug)
                sources.append("\(detail.source.rawValue)/\(definition.source.rawValue) (\(definition.value.steps.count) steps)")
            }
            return "\(slug): " + sources.joined(separator: ", then ")
        }

        try await step("Open the dashboard") { try await dashboardOutcome(policy: .default) }
        try await step("Open the dashboard again") { try await dashboardOutcome(policy: .default) }
        try await step("Open both accounts") {
            let first = try await graphQL.fetch(AccountDetailsQuery(accountId: "100"))
            let second = try await graphQL.fetch(AccountDetailsQuery(accountId: "1002"))
            return "\(first.source == .cache ? "hit" : "network"), \(second.source == .cache ? "hit" : "network")"
        }
        let before = try await balance(policy: .default)
        let requestsBefore = transport.count("/graphql")
        var after = before
        var seen = before
        var paid = false
        do {
            // The watcher lives for the payment only (it would refetch after every later clear).
            var watch = graphQL.watch(AccountDetailsQuery(accountId: "100"), policy: .returnCacheDataDontFetch).makeAsyncIterator()
            _ = await watch.next()
            try await step("Check funds, then pay 12.50 from account 100") {
                let check = try await app.accounts.checkFunds(accountId: "100", amount: 1_250)
                guard check.isSufficient else { return "funds check: only \(Self.euros(check.available))" }
                let receipt = try await app.accounts.makePayment(accountId: "100", amount: 1_250, description: "Demo payment")
                paid = true
                app.screens.reached("payment")
                after = try await balance(policy: .returnCacheDataDontFetch)
                let background = await receipt.background?.value.count ?? 0
                return "balance \(Self.euros(before)) → \(Self.euros(after)) from the cache; refetched "
                    + "\(receipt.critical.map(\.query).joined(separator: " and ")) before returning, \(background) in the background"
            }
            // Only a payment changes the balance the watcher waits for: with too little left (a long-lived
            // backend, `Tools/Soak`), nothing would ever come.
            if paid { seen = (try? await watch.next()?.get()).flatMap { $0.data["account"]?["balance"]?.intValue } ?? before }
        }
        let paymentRequests = transport.count("/graphql") - requestsBefore

        try await step("Switch away from account 100") {
            _ = await unified.clearCache(forAccountId: "100")
            let gone = (try? await graphQL.fetch(AccountDetailsQuery(accountId: "100"), policy: .returnCacheDataDontFetch)) == nil
            let kept = (try? await graphQL.fetch(AccountDetailsQuery(accountId: "1002"), policy: .returnCacheDataDontFetch)) != nil
            return "account 100 \(gone ? "cleared" : "STILL CACHED"), account 1002 \(kept ? "kept" : "fetched again")"
        }
        try await step("The server expires the session") { try await expireSession() }
        try await step("Sign in again") { try await signIn() }
        _ = try await dashboardOutcome(policy: .default)
        try await offlineChapter()
        try await contactsChapter()
        try await step("Chat: restore the history, today's prediction twice, a birth chart twice") {
            let (history, _) = await app.chat.syncOnLogin()
            let synced = try history.get()
            let before = transport.count("/todays-prediction") + transport.count("/astrodata/chart")
            let prediction = try await app.chat.todaysPrediction()
            _ = try await app.chat.todaysPrediction()
            let birth = BirthData(dateTime: "1990-04-12T06:30", latitude: 48.85, longitude: 2.35)
            let chart = try await app.chat.chart(for: birth)
            _ = try await app.chat.chart(for: birth)
            let requests = transport.count("/todays-prediction") + transport.count("/astrodata/chart") - before
            return "\(synced.threads) threads, \(synced.messages) messages; \"\(prediction.text)\"; sun in \(chart.sun); "
                + "\(requests) requests for 4 reads"
        }
        var clearMilliseconds = 0.0
        try await step("Log out") {
            let (report, duration) = await app.logOut()
            clearMilliseconds = duration.milliseconds
            return report.isComplete
                ? "server told, every cache cleared, token deleted in \(clearMilliseconds) ms"
                : "FAILED: \(report.failed)"
        }
        let left = await app.entryCount()
        return report(
            payment: .init(
                balanceBefore: before, balanceAfter: after, balanceSeenByWatcher: seen,
                graphQLRequests: paymentRequests),
            clear: clearMilliseconds, left: left)
    }

    func signIn() async throws -> String {
        let user = try await app.signIn()
        app.screens.reached("login")
        return "signed in as \(user)"
    }

    /// The catalog as a screen: its visit measured from appearing to the last page shown.
    func loadCatalog() async throws -> String {
        let visit = app.screens.appeared("catalog")
        let listing = try await app.loadCatalog()
        app.screens.displayed(visit, from: listing.sources.keys.allSatisfy { $0 == .cache } ? .cache : .network)
        app.screens.reached("catalog")
        app.screens.disappeared(visit)
        return listing.summary
    }

    func dashboardOutcome(policy: CachePolicy) async throws -> String {
        let result = try await graphQL.fetch(DashboardQuery(), policy: policy)
        let total = result.data["dashboard"]?["totalBalance"]?.intValue ?? 0
        return "\(result.source == .cache ? "hit" : "network"): total \(Self.euros(total))"
    }

    func balance(policy: CachePolicy) async throws -> Int {
        try await app.balance(policy: policy)
    }

    func expireSession() async throws -> String {
        try await app.admin(.post, "admin/sessions/u1/expire")
        if (try? await graphQL.fetch(DashboardQuery(), policy: .fetchIgnoringCacheData)) != nil {
            return "UNEXPECTED: the request still succeeded"
        }
        guard let expiry = await app.waitForSession({ $0.expiry != nil })?.expiry else {
            return "the session did not expire"
        }
        let left = await app.entryCount()
        return "\(expiry.status) → \"\(expiry.message)\", \(left) entries left"
    }

    func report(payment: Demo.Report.Payment, clear: Double, left: Int) -> Demo.Report {
        let counts = app.environment.metrics.snapshot().reduce(CacheStatistics(store: "all", feature: "all"), +)
        let latency = app.environment.metrics.latencySnapshot().map { summary in
            Demo.Report.Latency(
                feature: summary.feature, source: summary.source.rawValue, count: summary.count,
                p50: summary.p50.milliseconds, p90: summary.p90.milliseconds,
                p99: summary.p99.milliseconds)
        }
        var timeToInteractive: [String: [String: Double]] = [:]
        for source in ScreenTelemetry.Source.allCases {
            if let percentiles = app.screens.timeToInteractive(from: source) {
                timeToInteractive[source.rawValue] = ["p50": percentiles.p50, "p90": percentiles.p90, "p99": percentiles.p99]
            }
        }
        let alert = app.telemetry.alert.evaluate().status
        return Demo.Report(
            backend: app.baseURL.absoluteString, steps: steps.withLock { $0 }, hitRate: counts.hitRate,
            requestsSaved: counts.requestsSaved, bytesSaved: counts.bytesSaved,
            revalidations: counts.revalidations, latency: latency, payment: payment,
            logoutClearMilliseconds: clear, entriesAfterLogout: left,
            telemetry: .init(
                timeToInteractive: timeToInteractive, funnel: app.screens.funnel(), requests: alert.requests,
                failedRequests: alert.failures, alertFiring: alert.isFiring))
    }

    static func euros(_ cents: Int) -> String {
        String(format: "%.2f €", Double(cents) / 100)
    }
}
