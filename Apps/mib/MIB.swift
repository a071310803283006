import APICore
import ArgumentParser
import CacheKit
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend

/// The integration binary: the composition root's demo and the reference backend.
@main
struct MIB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mib",
        abstract: "The MIB data layer's integration binary: the demo and the reference backend.",
        subcommands: [
            DemoCommand.self, ServeCommand.self, ProxyCommand.self, EndToEndCommand.self,
            InspectCommand.self, SyncCommand.self,
        ])
}

/// `mib demo`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the reference backend on a free local port and walk through the product's story.")

    @Flag(help: "Print the report as JSON instead of the readable timeline.")
    var json = false

    func run() async throws {
        let directory = scratchDirectory("demo")
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = self.json
        let report = try await Demo.run(in: directory) { step in
            guard !json else { return }
            print(String(format: "%8.1f ms  %@: %@", step.milliseconds, step.name, step.outcome))
        }
        if json {
            try printJSON(report)
            return
        }
        print("")
        print("Cache report")
        print(
            String(
                format: "  hit rate %.0f%%, %d requests saved, %d bytes saved, %d revalidated with 304",
                report.hitRate * 100, report.requestsSaved, report.bytesSaved, report.revalidations))
        for line in report.latency {
            print(
                String(
                    format: "  %@ from %@: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms (%d)",
                    line.feature, line.source, line.p50, line.p90, line.p99, line.count))
        }
        print(
            String(
                format: "  payment: %d → %d cents, watcher saw %d, %d GraphQL requests",
                report.payment.balanceBefore, report.payment.balanceAfter, report.payment.balanceSeenByWatcher,
                report.payment.graphQLRequests))
        print(
            String(
                format: "  logout (server told, every cache cleared, token deleted) in %.2f ms; %d entries left",
                report.logoutClearMilliseconds,
                report.entriesAfterLogout))
        let telemetry = report.telemetry
        for (source, percentiles) in telemetry.timeToInteractive.sorted(by: { $0.key < $1.key }) {
            print(
                String(
                    format: "  time to interactive from %@: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms", source,
                    percentiles["p50"] ?? 0, percentiles["p90"] ?? 0, percentiles["p99"] ?? 0))
        }
        let funnel = ["login", "catalog", "detail", "payment"].map { "\($0) \(telemetry.funnel[$0] ?? 0)" }
        print("  funnel: " + funnel.joined(separator: " → "))
        print(
            "  API requests in the last 5 minutes \(telemetry.requests), failed \(telemetry.failedRequests); error-rate alert "
                + (telemetry.alertFiring ? "FIRING" : "quiet"))
    }
}

/// `mib proxy`.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "A local HTTP proxy that sends every request through APICore's HTTP cache.",
        discussion: """
            Each response carries X-Cache: HIT, MISS, REVALIDATED or STALE, and Age when it was reused;
            when the proxy is why a response came from the origin, the reason follows
            (MISS; new caller (authorization), MISS; request no-cache).

            What identifies a caller (each caller has a cache of its own): Authorization,
            Proxy-Authorization, Cookie; what an authenticating front adds (X-Forwarded-User, -Email,
            -Client-Cert, the for= of Forwarded, X-Forwarded-For); any field whose name contains token,
            key, auth, session, secret, signature, password, passwd, credential, cookie or jwt
            (PRIVATE-TOKEN, X-Goog-Api-Key, X-Auth-Token), Idempotency-Key aside; and each
            --caller-field. Every other field (a request id, a trace header) never splits callers.
            A caller with none of them is the anonymous caller. A stored Set-Cookie is never served.

            Example: mib proxy --upstream https://api.example.com --port 8081, then
            curl -i http://127.0.0.1:8081/some/path twice.
            """)

    @Option(help: "The origin's base URL (http or https).")
    var upstream: String

    @Option(help: "The port on 127.0.0.1 (0 picks a free one).")
    var port = 8081

    @Option(help: "How long to wait for the origin, in seconds.")
    var timeout = 60

    @Option(
        name: .customLong("caller-field"),
        help: "A request field that identifies a caller besides the credential fields (repeatable).")
    var callerFields: [String] = []

    func validate() throws {
        _ = try httpURL(upstream, option: "--upstream", example: "https://api.example.com")
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        for name in callerFields where HTTPField.Name(name) == nil {
            throw ValidationError("--caller-field must be a field name, such as X-Tenant; '\(name)' is not")
        }
    }

    func run() async throws {
        let url = try httpURL(upstream, option: "--upstream", example: "https://api.example.com")
        try await requireReachable(url, named: "the upstream", hint: "check --upstream and the network")
        let directory = scratchDirectory("proxy")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = CacheEnvironment(logger: Logger(label: "mib.proxy"), cachesDirectory: directory)
        let proxy = try await CacheProxy.start(
            .init(
                upstream: url, port: port, environment: environment,
                requestTimeout: .seconds(timeout), callerFields: Set(callerFields)))
        print("Caching proxy on \(proxy.baseURL.absoluteString) → \(upstream); Ctrl-C stops it.")
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3_600))
        }
        await proxy.stop()
    }
}

/// `text` as an http or https URL with a host, or a ``ValidationError`` naming `option`.
func httpURL(_ text: String, option: String, example: String) throws -> URL {
    guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
        throw ValidationError("\(option) must be an http or https URL, such as \(example)")
    }
    return url
}

/// `--server`'s URL, if given (validated by `validate()`).
func serverURL(_ server: String?) throws -> URL? {
    try server.map { try httpURL($0, option: "--server", example: "http://127.0.0.1:8080") }
}

/// A new folder under the temporary directory for one run, created 0700 (it holds a backend's database and
/// a user's caches, in a folder every local user can list); the caller removes it.
func scratchDirectory(_ command: String) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mib-\(command)-\(UUID().uuidString)")
    try? ProtectedFiles.createDirectory(directory)
    return directory
}

/// Prints `value` as sorted, indented JSON, dates in ISO 8601.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
