import APICore
import APICoreGraphQL
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ContactsKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIBApp
import NIOCore
import ReferenceBackend
import SessionKit

/// `mib inspect --web`: a live cache dashboard served on 127.0.0.1 while the app runs (REQ OBS-5). The
/// page (`GET /`, no external script or font: there may be no internet) polls `GET /api/state` every
/// second and shows every store's entries, bytes and hit rate, time-to-interactive p50/p90/p99 by source
/// with a chart over time, the error rate with the alert's state, the redacted entry list with a search
/// box (`?q=`), and a clear button per participant (`POST /api/clear?participant=`).
public final class Dashboard: Sendable {
    /// Where the page is served.
    public var baseURL: URL { server.baseURL }
    private let server: LocalServer
    private let app: DemoComposition
    private let started: Date
    private let history = Locked<[DashboardState.Sample]>([])
    private let passes = Locked(0)

    private init(server: LocalServer, app: DemoComposition, started: Date) {
        self.server = server
        self.app = app
        self.started = started
    }

    /// The page's fields: never stored, and never framed by another page (a frame could trick a click on a
    /// clear button: security review two, finding 13).
    static let pageFields: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy: "frame-ancestors 'none'", HTTPField.Name("X-Frame-Options")!: "DENY",
    ]

    /// Serves the dashboard of `app` on `port` (0 picks a free one).
    public static func start(app: DemoComposition, port: Int = 0, logger: Logger) async throws -> Dashboard {
        let box = Locked<Dashboard?>(nil)
        let router = Router()
        // A clear needs this run's token, which only the page served here carries; a page on another
        // origin can neither read it (no CORS, a loopback Host only) nor post without it.
        let token = UUID().uuidString
        router.add(middleware: LoopbackGuard(token: token))
        router.get("/") { _, _ in
            Response(
                status: .ok, headers: Self.pageFields,
                body: .init(byteBuffer: ByteBuffer(string: DashboardPage.html(token: token))))
        }
        router.get("api/state") { request, _ in
            guard let dashboard = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            let state = await dashboard.state(search: request.uri.queryParameters["q"].map(String.init) ?? "")
            return try Self.json(state)
        }
        router.post("api/clear") { request, _ in
            guard let dashboard = box.withLock({ $0 }), let name = request.uri.queryParameters["participant"].map(String.init),
                dashboard.app.unified.participantNames.contains(name)
            else { return Response(status: .notFound) }
            let report = await dashboard.app.unified.clearCache(participant: name)
            return Response(status: report.isComplete ? .noContent : .internalServerError)
        }
        let server = try await LocalServer.start(responder: router.buildResponder(), port: port, logger: logger)
        let dashboard = Dashboard(server: server, app: app, started: app.clock.now())
        box.withLock { $0 = dashboard }
        return dashboard
    }

    /// Stops serving.
    public func stop() async {
        await server.stop()
    }

    /// Adds a point to the charts: time-to-interactive p50 by source and the error rate, now.
    public func sample() {
        var timeToInteractive: [String: Double] = [:]
        for source in ScreenTelemetry.Source.allCases {
            if let percentiles = app.screens.timeToInteractive(from: source) { timeToInteractive[source.rawValue] = percentiles.p50 }
        }
        let point = DashboardState.Sample(
            second: app.clock.now().timeIntervalSince(started), timeToInteractive: timeToInteractive,
            errorRate: app.telemetry.alert.evaluate().status.rate)
        history.withLock { history in
            history.append(point)
            if history.count > 300 { history.removeFirst(history.count - 300) }
        }
    }

    /// What the page shows now; `search` keeps the entries whose participant, store or (redacted) key
    /// contains it.
    public func state(search: String = "") async -> DashboardState {
        var timeToInteractive: [String: DashboardState.Percentiles] = [:]
        for source in ScreenTelemetry.Source.allCases {
            if let percentiles = app.screens.timeToInteractive(from: source) { timeToInteractive[source.rawValue] = .init(percentiles) }
        }
        let alert = app.telemetry.alert.evaluate().status
        let needle = search.lowercased()
        let entries = await app.unified.exportCacheContents().filter { entry in
            needle.isEmpty || [entry.participant, entry.store, entry.key].contains { $0.lowercased().contains(needle) }
        }
        return DashboardState(
            stores: await app.unified.statistics().map(DashboardState.Store.init),
            syncs: app.backgroundSync.runners.map(DashboardState.Sync.init),
            timeToInteractive: timeToInteractive,
            history: history.withLock { $0 },
            errors: .init(requests: alert.requests, failures: alert.failures, rate: alert.rate, alertFiring: alert.isFiring),
            funnel: app.screens.funnel(), entries: entries)
    }

    /// One pass of the demo's use of the app, as a user would: sign in, the address book's sync (full, then
    /// incremental), the catalog screen, a funnel, the dashboard and both balances, and every fifth pass a
    /// one-cent payment; then two minutes pass on the
    /// demo's clock (so every third pass finds the catalog stale and revalidates it), and a sample is taken.
    public func drive() async throws {
        let pass = passes.withLock { passes in
            passes += 1
            return passes
        }
        if app.session.current.user == nil { try await app.signIn() }
        app.screens.reached("login")
        _ = await app.contacts.syncNow()
        let model = CatalogListModel(client: app.catalog, limit: 20, screens: app.screens)
        await model.load()
        if let slug = await model.current.listing.funnels.first?.slug {
            let visit = app.screens.appeared("detail")
            let detail = try await app.catalog.funnel(slug: slug)
            app.screens.displayed(visit, from: detail.source == .cache ? .cache : .network)
            app.screens.reached("detail")
            app.screens.disappeared(visit)
        }
        await model.disappeared()
        // The list's thumbnails: the first pass loads them, later passes read them from the image cache.
        for index in 0..<5 { _ = try await app.composition.thumbnail("/avatars/person-\(index).png") }
        _ = try await app.graphQL.fetch(DashboardQuery())
        _ = try await app.balance(of: "100")
        _ = try await app.balance(of: "1002")
        if pass % 5 == 0 {
            _ = try await app.accounts.makePayment(accountId: "1002", amount: 1, description: "Dashboard pass \(pass)")
            app.screens.reached("payment")
        }
        app.clock.advance(by: 120)
        sample()
    }

    private static func json<T: Encodable>(_ value: T) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
