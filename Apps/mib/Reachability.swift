import APICore
import ArgumentParser
import Foundation
import HTTPTypes
import MIBCore

/// Before a command works against a server it did not start, one request shows that something answers
/// there. When nothing does, the command prints one sentence naming the URL and the cause, and exits 2
/// (not 1, which says the scenarios ran and some failed).
func requireReachable(_ url: URL, probing path: String = "", named role: String, hint: String) async throws {
    if let sentence = await unreachable(url, probing: path, named: role, hint: hint) {
        printError(sentence)
        throw ExitCode(2)
    }
}

/// The sentence `mib` prints when `url` (probed at `path`) does not answer, or `nil` when it answers,
/// whatever the status.
func unreachable(_ url: URL, probing path: String = "", named role: String, hint: String) async -> String? {
    let probe = path.isEmpty ? url : url.appendingPathComponent(path)
    do {
        _ = try await ToolTransport.make().send(TransportRequest(method: .get, url: probe, timeout: .seconds(10)))
        return nil
    } catch {
        return "mib: \(role) \(url.absoluteString) cannot be reached (\(unreachableCause(error))); \(hint)."
    }
}

/// The cause of a failed first request, as a clause.
func unreachableCause(_ error: TransportError) -> String {
    switch error {
    case .offline(let reason), .other(let reason): "nothing answered: \(clause(reason))"
    case .timedOut: "it did not answer within 10 seconds"
    case .connectionLost(let reason): "the connection dropped: \(clause(reason))"
    case .cancelled: "the check was cancelled"
    case .pinMismatch(let host): "\(host) did not prove a pinned key"
    case .invalidRequest(let reason): "the URL cannot be requested: \(clause(reason))"
    case .responseTooLarge(let limit): "it answered with more than \(limit) bytes"
    }
}

/// A transport's reason inside a sentence: one line, with no full stop of its own.
private func clause(_ reason: String) -> String {
    let line = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    return line.hasSuffix(".") ? String(line.dropLast()) : line
}
