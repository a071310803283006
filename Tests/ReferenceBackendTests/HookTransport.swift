import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes

/// A transport a test steps into: it records every request (path, query, whose token), runs `before`
/// before a request leaves (which may wait, do something in the app, or fail the request) and lets `after`
/// change an answer.
final class HookTransport: HTTPTransport {
    /// One request as it left.
    struct Sent: Sendable, Hashable {
        var path: String
        var query: String?
        var token: String?
    }

    private struct Hooks {
        var sent: [Sent] = []
        var before: (@Sendable (TransportRequest, Int) async -> TransportError?)?
        var after: (@Sendable (TransportRequest, inout TransportResponse) -> Void)?
        var answer: (@Sendable (TransportRequest) -> TransportResponse?)?
    }

    private let base: any HTTPTransport
    private let hooks = Locked(Hooks())

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// Runs before each request leaves, with its index among every request; a returned error fails it.
    func before(_ body: (@Sendable (TransportRequest, Int) async -> TransportError?)?) {
        hooks.withLock { $0.before = body }
    }

    /// Runs on each answer.
    func after(_ body: (@Sendable (TransportRequest, inout TransportResponse) -> Void)?) {
        hooks.withLock { $0.after = body }
    }

    /// Answers a request itself when `body` returns a response: it never reaches the server (a refusal the
    /// server would not make on its own).
    func answer(_ body: (@Sendable (TransportRequest) -> TransportResponse?)?) {
        hooks.withLock { $0.answer = body }
    }

    /// Every request so far, in order.
    var sent: [Sent] {
        hooks.withLock { $0.sent }
    }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let token = request.headerFields[.authorization].map { String($0.dropFirst("Bearer ".count)) }
        let (index, before) = hooks.withLock { hooks in
            hooks.sent.append(Sent(path: request.url.path, query: request.url.query, token: token))
            return (hooks.sent.count - 1, hooks.before)
        }
        if let error = await before?(request, index) { throw error }
        if let answer = hooks.withLock({ $0.answer })?(request) { return answer }
        var response = try await base.send(request)
        if let after = hooks.withLock({ $0.after }) { after(request, &response) }
        return response
    }
}

/// A request that never gets an answer: waits until its task is cancelled, as a server that accepted the
/// connection and never wrote would keep it. Not cancelled within `TestDeadline.wait`, it ends as timed out,
/// so a test waiting on it fails instead of hanging.
func neverAnswered() async -> TransportError {
    (try? await Task.sleep(for: TestDeadline.wait)) == nil ? .cancelled : .timedOut
}
