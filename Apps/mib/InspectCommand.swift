import APICore
import ArgumentParser
import CacheKit
import Foundation
import Logging
import MIBCore
import ReferenceBackend

/// `mib inspect`.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Use the app against a backend, then print cache statistics and a redacted export of every entry.")

    @Option(help: "The backend to use (default: a reference backend started for the run).")
    var server: String?

    @Flag(help: "Print the inspection as JSON.")
    var json = false

    @Flag(help: "Serve a live cache dashboard while the app runs the demo's use in a loop.")
    var web = false

    @Option(help: "The dashboard's port on 127.0.0.1 (with --web; 0 picks a free one).")
    var port = 8088

    @Option(help: "Stop after this many passes of the app's use (with --web; default: run until interrupted).")
    var passes: Int?

    func validate() throws {
        _ = try serverURL(server)
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        if let passes, passes < 1 { throw ValidationError("--passes must be at least 1") }
    }

    func run() async throws {
        if let server = try serverURL(server) {
            try await requireReachable(
                server, probing: "health", named: "the server",
                hint: "start it with `mib serve`, or leave out --server to inspect a fresh reference backend")
        }
        let directory = scratchDirectory("inspect")
        defer { try? FileManager.default.removeItem(at: directory) }
        if web {
            try await serveDashboard(in: directory)
            return
        }
        let inspection = try await Inspector.run(server: try serverURL(server), in: directory)
        if json {
            try printJSON(inspection)
            return
        }
        print("Cache statistics (\(inspection.server))")
        for row in inspection.statistics {
            let counts = row.counts
            let name = "\(row.participant)/\(counts.store)".padding(toLength: 20, withPad: " ", startingAt: 0)
            print(
                "  \(name) \(row.usage.count) entries, \(row.usage.bytes) bytes; hits \(counts.hits), misses "
                    + "\(counts.misses), 304s \(counts.revalidations), expirations \(counts.expirations)")
        }
        let budget = inspection.budget
        print("\nBudget: \(budget.totalAfter) of \(budget.budget.totalBytes) bytes app-wide")
        for share in budget.shares {
            let percent = Double(share.bytesAfter) * 100 / Double(max(1, budget.budget.totalBytes))
            print(
                "  \(share.participant.padding(toLength: 20, withPad: " ", startingAt: 0)) \(share.bytesAfter) bytes, "
                    + "\(String(format: "%.2f", percent))% of the budget (allowed \(share.allowance))")
        }
        print("\nEntries (keys, users and accounts redacted; values never shown)")
        for entry in inspection.entries {
            let expiry = entry.expiresAt.map { "expires \(ISO8601DateFormatter().string(from: $0))" } ?? "no expiry"
            print(
                "  \(entry.participant)/\(entry.store)  \(entry.key)  \(entry.bytes) bytes  user \(entry.user ?? "-")  "
                    + "account \(entry.account ?? "-")  \(expiry)")
        }
    }
}

extension InspectCommand {
    /// Serves the dashboard and uses the app once a second until interrupted (or `passes` are done).
    func serveDashboard(in directory: URL) async throws {
        var logger = Logger(label: "mib")
        logger.logLevel = .critical
        try await DemoComposition.withBackend(try serverURL(server), in: directory, logger: logger) { baseURL in
            let app = try DemoComposition(baseURL: baseURL, cachesDirectory: directory.appendingPathComponent("caches"), logger: logger)
            let dashboard = try await Dashboard.start(app: app, port: port, logger: logger)
            print("Cache dashboard: \(dashboard.baseURL.absoluteString) (against \(baseURL.absoluteString)); Ctrl-C to stop")
            var pass = 0
            while passes.map({ pass < $0 }) ?? true {
                pass += 1
                do {
                    try await dashboard.drive()
                } catch {
                    print("pass \(pass) failed: \(error)")
                }
                try await Task.sleep(for: .seconds(1))
            }
            await dashboard.stop()
        }
    }
}
