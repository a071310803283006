import ArgumentParser
import CacheKit
import Foundation
import MIBCore

/// `mib sync`.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sign in and run every kit's sync once under a time budget, as a background refresh would.")

    @Option(help: "The backend to use (default: a reference backend started for the run).")
    var server: String?

    @Option(help: "The time allowed: 30s, 500ms, 2m or plain seconds.")
    var budget = "30s"

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        _ = try serverURL(server)
        guard Self.seconds(budget) != nil else {
            throw ValidationError("--budget takes a positive duration such as 30s, 500ms or 2m, not \"\(budget)\"")
        }
    }

    func run() async throws {
        if let server = try serverURL(server) {
            try await requireReachable(
                server, probing: "health", named: "the server",
                hint: "start it with `mib serve`, or leave out --server to sync from a fresh reference backend")
        }
        let directory = scratchDirectory("sync")
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try await SyncRun.run(server: try serverURL(server), in: directory, budget: Self.seconds(budget) ?? 30)
        if json {
            try printJSON(report)
        } else {
            print(String(format: "Background sync: %.2f s of a %.0f s budget", report.duration, report.budget))
            for sync in report.syncs {
                let counts = sync.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let mode = sync.mode.map { "\($0.rawValue)\(sync.resumed ? ", resumed" : "")" } ?? "not started"
                print(
                    String(
                        format: "  %@ (%@): %@; %d page(s), %d request(s), %.2f s, %@", sync.name, mode,
                        counts.isEmpty ? "nothing new" : counts, sync.pages, sync.requests, sync.duration, sync.outcome.rawValue)
                        + (sync.error.map { ": \($0)" } ?? ""))
            }
        }
        if !report.isComplete { throw ExitCode(1) }
    }

    /// `30s`, `500ms`, `2m` or `30` as seconds; `nil` when not a positive duration.
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        let (number, scale) = units.first { text.hasSuffix($0.0) }.map { (String(text.dropLast($0.0.count)), $0.1) } ?? (text, 1)
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return value * scale
    }
}
