import APICore
import ArgumentParser
import Foundation
import HTTPTypes
import MIBApp
import MIBCore

/// `mib e2e`.
struct EndToEndCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e2e",
        abstract: "Run the end-to-end scenarios against a fresh reference backend or the given one.",
        discussion: "Prints PASS or FAIL per scenario with what it saw; exits with 1 when any failed.")

    @Option(help: "The backend to check (default: a reference backend started for the run).")
    var server: String?

    @Option(
        name: .customLong("pin"),
        help:
            "A pin of the server's key: base64 SHA-256 of a SubjectPublicKeyInfo (repeat: the key in use and a backup; needs `swift run --traits TLS mib`)."
    )
    var pins: [String] = []

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        _ = try pinning()
    }

    func run() async throws {
        let directory = scratchDirectory("e2e")
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = self.json
        let pinning = try pinning()
        let transport: TransportFactory = try pinning.map { try TLSSupport.pinnedTransport($0) } ?? ToolTransport.factory
        if pinning != nil, let server = try serverURL(server) {
            try await checkPins(server: server, through: transport)
        } else if let server = try serverURL(server) {
            try await requireReachable(
                server, probing: "health", named: "the server",
                hint: "start it with `mib serve`, or leave out --server to test against a fresh reference backend")
        }
        let report = try await EndToEnd.run(server: try serverURL(server), transport: transport, in: directory) { result in
            guard !json else { return }
            let mark = result.passed ? "PASS" : "FAIL"
            print(
                String(
                    format: "%@  %@: %@ (%.1f ms)\n      %@", mark, result.kit, result.name, result.milliseconds,
                    result.detail))
        }
        if json {
            try printJSON(report)
        } else {
            let failed = report.results.filter { !$0.passed }.count
            print("\n\(report.results.count - failed) passed, \(failed) failed against \(report.server)")
        }
        if !report.passed { throw ExitCode(1) }
    }
}

extension EndToEndCommand {
    /// The pins given with `--pin`, for `--server`'s host: `nil` when none was given.
    func pinning() throws -> PinningPolicy? {
        let url = try serverURL(server)
        guard !pins.isEmpty else { return nil }
        guard let url, url.scheme?.lowercased() == "https", let host = url.host else {
            throw ValidationError("--pin needs an https --server, such as https://127.0.0.1:8443")
        }
        do {
            return try PinningPolicy([.init(host: host, pins: Set(pins))])
        } catch {
            throw ValidationError("--pin: \(error)")
        }
    }

    /// Fails closed, with one clear sentence, when the server does not prove a pinned key.
    func checkPins(server: URL, through makeTransport: TransportFactory) async throws {
        let transport = try makeTransport()
        do {
            _ = try await transport.send(
                TransportRequest(method: .get, url: server.appendingPathComponent("health"), timeout: .seconds(10)))
        } catch .pinMismatch(let host) {
            printError(
                "\(host) did not prove any of the \(pins.count) pinned keys: refusing to connect (a man in the middle, or a key rotated without its pin)."
            )
            throw ExitCode(1)
        } catch {
            printError("mib: the server \(server.absoluteString) cannot be reached (\(unreachableCause(error))).")
            throw ExitCode(2)
        }
    }
}

/// Writes `message` to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
