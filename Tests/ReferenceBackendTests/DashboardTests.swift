import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import MIBCore
import Testing

/// `mib inspect --web`: the live dashboard's data, search and clear buttons over real HTTP, and its page
/// rendered in a real browser (REQ OBS-5).
@Suite(.timeLimit(.minutes(10))) struct DashboardTests {
    /// A dashboard over the app against a reference backend, after `passes` uses of the app.
    static func withDashboard(passes: Int = 2, _ body: (Dashboard, URLSessionTransport) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var logger = Logger(label: "dashboard-test")
        logger.logLevel = .critical
        try await DemoComposition.withBackend(nil, in: directory.url, logger: logger) { baseURL in
            let app = try DemoComposition(baseURL: baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"), logger: logger)
            let dashboard = try await Dashboard.start(app: app, logger: logger)
            do {
                for _ in 0..<passes { try await dashboard.drive() }
                try await body(dashboard, URLSessionTransport())
            } catch {
                await dashboard.stop()
                throw error
            }
            await dashboard.stop()
        }
    }

    static func state(_ dashboard: Dashboard, _ transport: URLSessionTransport, search: String = "") async throws -> DashboardState {
        let url = try #require(URL(string: dashboard.baseURL.absoluteString + "/api/state?q=\(search)"))
        let response = try await transport.send(TransportRequest(method: .get, url: url, timeout: TestDeadline.request))
        #expect(response.status == 200)
        return try JSONDecoder.dashboard.decode(DashboardState.self, from: response.body)
    }

    @Test func theStateShowsStoresTimeToInteractiveErrorsAndTheFunnel() async throws {
        try await Self.withDashboard(passes: 3) { dashboard, transport in
            let state = try await Self.state(dashboard, transport)
            let catalog = state.stores.first { $0.participant == "catalog" && $0.store == "http" }
            #expect((catalog?.entries ?? 0) > 0 && (catalog?.bytes ?? 0) > 0)
            #expect((catalog?.hitRate ?? 0) > 0, "the second pass reads the catalog from the cache")
            let contacts = state.syncs.first { $0.name == "contacts" }
            #expect(contacts?.lastOutcome == "completed" && contacts?.firstSyncFinished == true && contacts?.activity == "idle")
            #expect(contacts?.lastMode == "incremental", "the third pass synced only what changed")
            let images = state.stores.first { $0.participant == "images" }
            #expect(images?.entries == 5 && (images?.hitRate ?? 0) > 0, "the thumbnails: loaded once, then read from the image cache")
            #expect(state.timeToInteractive["network"] != nil && state.timeToInteractive["cache"] != nil)
            #expect(state.history.count == 3)
            #expect(state.funnel["catalog"] == 3 && state.funnel["detail"] == 3)
            #expect(state.errors.requests > 0 && !state.errors.alertFiring)
            #expect(state.entries.allSatisfy { $0.user?.hasPrefix("#") ?? true }, "users are redacted")
        }
    }

    @Test func theSearchFiltersTheEntriesAndAClearButtonClearsOneParticipant() async throws {
        try await Self.withDashboard { dashboard, transport in
            let all = try await Self.state(dashboard, transport).entries
            let graphQL = try await Self.state(dashboard, transport, search: "graphql").entries
            #expect(!graphQL.isEmpty && graphQL.count < all.count && graphQL.allSatisfy { $0.participant == "graphql" })
            let clear = try #require(URL(string: dashboard.baseURL.absoluteString + "/api/clear?participant=catalog"))
            let token = try await Self.pageToken(dashboard, transport)
            // Security review, finding 11: what a page on another origin could send is refused, nothing cleared.
            let tokenField = HTTPField.Name("X-MIB-Token")!
            for forged: HTTPFields in [
                [:], [tokenField: "guess"], [tokenField: token, .origin: "https://evil.example"],
                [tokenField: token, HTTPField.Name("Host")!: "evil.example:80"],
            ] {
                let refused = try await transport.send(
                    TransportRequest(method: .post, url: clear, headerFields: forged, timeout: TestDeadline.request))
                #expect(refused.status == 403, "\(forged)")
            }
            #expect(try await Self.state(dashboard, transport).stores.contains { $0.participant == "catalog" && $0.entries > 0 })
            let rebound = try await transport.send(
                TransportRequest(
                    method: .get, url: dashboard.baseURL.appendingPathComponent("api/state"),
                    headerFields: [HTTPField.Name("Host")!: "rebound.example"],
                    timeout: TestDeadline.request))
            #expect(rebound.status == 403, "a DNS-rebinding page reads no state")
            #expect(
                try await transport.send(
                    TransportRequest(method: .post, url: clear, headerFields: [tokenField: token], timeout: TestDeadline.request)
                ).status
                    == 204)
            let after = try await Self.state(dashboard, transport)
            #expect(after.stores.filter { $0.participant == "catalog" }.allSatisfy { $0.entries == 0 })
            #expect(after.entries.filter { $0.participant == "graphql" }.count == graphQL.count, "other participants keep theirs")
            let unknown = try #require(URL(string: dashboard.baseURL.absoluteString + "/api/clear?participant=nobody"))
            #expect(
                try await transport.send(
                    TransportRequest(method: .post, url: unknown, headerFields: [tokenField: token], timeout: TestDeadline.request)
                )
                .status == 404)
        }
    }

    /// The per-run token the page carries for its clear buttons.
    static func pageToken(_ dashboard: Dashboard, _ transport: URLSessionTransport) async throws -> String {
        let page = try await transport.send(TransportRequest(method: .get, url: dashboard.baseURL, timeout: TestDeadline.request))
        let html = String(decoding: page.body, as: UTF8.self)
        let start = try #require(html.range(of: #""X-MIB-Token": ""#))
        let token = html[start.upperBound...].prefix { $0 != "\"" }
        #expect(token.count == 36)
        return String(token)
    }

    @Test func thePageLoadsNothingFromAnotherOrigin() async throws {
        try await Self.withDashboard(passes: 1) { dashboard, transport in
            let page = try await transport.send(TransportRequest(method: .get, url: dashboard.baseURL, timeout: TestDeadline.request))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 200 && html.contains("<svg id=\"tti-chart\""))
            for external in ["<script src", "<link", "@import", "https://", "src=\"http"] {
                #expect(!html.contains(external), "the page references \(external)")
            }
            // No other page may frame it (a framed clear button could be clicked through a decoy).
            #expect(page.headerFields[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(page.headerFields[HTTPField.Name("X-Frame-Options")!] == "DENY")
        }
    }

    @Test(.enabled(if: Chromium.path != nil || Chromium.required, "chromium is not installed here (.ci/run installs it)"))
    func aRealBrowserRendersTheStoresTheChartsAndTheAlertState() async throws {
        try await Self.withDashboard(passes: 3) { dashboard, _ in
            let dom = try await Chromium.dumpDOM(of: dashboard.baseURL)
            #expect(dom.contains("<td>catalog</td>"), "the stores table is rendered")
            #expect(dom.contains("clear catalog"), "each participant has a clear button")
            #expect(dom.contains("<polyline"), "the time-to-interactive chart is drawn")
            #expect(dom.contains("id=\"alert\" class=\"quiet\">no alert"), "the alert's state is shown")
            #expect(dom.contains("login 3"), "the funnel is shown")
            #expect(dom.contains("<td>address book</td>") && dom.contains("<td>photo cache</td>"), "the offline data is shown")
            #expect(dom.contains("<td>contacts</td><td>idle</td>") && dom.contains("pages"), "each sync's state and last run")
            #expect(dom.contains("class=\"axis-label\">0</text>") && dom.contains(" s</text>"), "the charts' values on their axes")
        }
    }
}

extension JSONDecoder {
    /// Reads the dashboard's JSON (ISO 8601 dates).
    static var dashboard: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Debian's chromium, headless: the page's DOM after its script ran.
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// In CI the browser test never skips: a missing chromium fails it.
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The DOM of `url` after 3 s of (virtual) time; fails after 90 s of real time rather than hang.
    static func dumpDOM(of url: URL) async throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dom = directory.url.appendingPathComponent("dom.html")
        let process = try SpawnedProcess.start(
            try #require(path, "chromium is required in CI (.ci/run installs it)"),
            arguments: [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--virtual-time-budget=3000", "--dump-dom",
                url.absoluteString,
            ], output: dom)
        do {
            try await waitUntil("chromium to render the page and exit", timeout: .seconds(90)) { !process.isRunning }
        } catch {
            process.send(SIGKILL)
            _ = await process.waitUntilExit()
            throw error
        }
        return try String(contentsOf: dom, encoding: .utf8)
    }
}
