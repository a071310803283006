import CacheKit
import Foundation
import Hummingbird
import NIOCore

/// A fault to inject, for every request or those whose path starts with ``pathPrefix``: added
/// latency, then either a dropped connection (before or after handling the request), a status for every
/// request, or a status for a fraction of them (``errorRate``, spread evenly and deterministically: 0.25 fails every fourth request).
/// The `/admin` routes are never affected.
public struct FaultRule: Codable, Sendable, Hashable {
    /// The paths affected (`/api/funnels`); `nil` for all.
    public var pathPrefix: String?
    /// Added before answering, in milliseconds.
    public var latencyMs: Int?
    /// The fraction of matching requests that fail with ``status`` (500 unless given).
    public var errorRate: Double?
    /// The status of failed requests; alone, every matching request fails with it.
    public var status: Int?
    /// Close the connection without answering.
    public var dropConnection: Bool?
    /// Handle the request, then close the connection without answering: the change is applied and the
    /// client never hears of it (a timeout after the server took a payment).
    public var answerLost: Bool?

    /// Creates a rule.
    public init(
        pathPrefix: String? = nil, latencyMs: Int? = nil, errorRate: Double? = nil, status: Int? = nil,
        dropConnection: Bool? = nil, answerLost: Bool? = nil
    ) {
        self.pathPrefix = pathPrefix
        self.latencyMs = latencyMs
        self.errorRate = errorRate
        self.status = status
        self.dropConnection = dropConnection
        self.answerLost = answerLost
    }

    /// The most rules `PUT /admin/faults` takes at once.
    public static let maximumRules = 100

    /// Why the rule cannot be applied, in one sentence, or `nil`: every value a client sends is bounded, so
    /// no rule can trap the server (a rate far past 1 overflowed an `Int`, a status past 999 failed
    /// `HTTPResponse.Status`'s precondition, latencies summed past `Duration`'s range).
    public var problem: String? {
        if let latencyMs, !(0...60_000).contains(latencyMs) { return "latencyMs must be from 0 to 60000." }
        if let errorRate, !(errorRate.isFinite && (0...1).contains(errorRate)) { return "errorRate must be from 0 to 1." }
        if let status, !(100...599).contains(status) { return "status must be from 100 to 599." }
        return nil
    }
}

/// The faults in force, changed through `PUT /admin/faults` (a JSON array of ``FaultRule``) and
/// `DELETE /admin/faults`.
final class Faults: Sendable {
    private let state: Locked<(rules: [FaultRule], seen: [Int: Int])>

    init(_ rules: [FaultRule]) {
        state = Locked((rules, [:]))
    }

    var rules: [FaultRule] { state.withLock { $0.rules } }

    func replace(_ rules: [FaultRule]) {
        state.withLock { $0 = (rules, [:]) }
    }

    enum Action {
        case proceed
        case fail(Int)
        case drop
        case dropAfterHandling
    }

    /// What to do with a request to `path`, and the latency to add first.
    func decide(path: String) -> (latency: Duration, action: Action) {
        guard !path.hasPrefix("/admin") else { return (.zero, .proceed) }
        return state.withLock { state in
            var latency = Duration.zero
            var action = Action.proceed
            for (index, rule) in state.rules.enumerated() where rule.pathPrefix.map(path.hasPrefix) ?? true {
                latency += .milliseconds(rule.latencyMs ?? 0)
                guard case .proceed = action else { continue }
                if rule.dropConnection == true {
                    action = .drop
                } else if rule.answerLost == true {
                    action = .dropAfterHandling
                } else if let rate = rule.errorRate {
                    let seen = state.seen[index, default: 0]
                    state.seen[index] = seen + 1
                    if Int((Double(seen + 1) * rate).rounded(.down)) > Int((Double(seen) * rate).rounded(.down)) {
                        action = .fail(rule.status ?? 500)
                    }
                } else if let status = rule.status {
                    action = .fail(status)
                }
            }
            return (latency, action)
        }
    }
}

/// Applies ``Faults`` before routing.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BackendContext
    let faults: Faults

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let (latency, action) = faults.decide(path: request.uri.path)
        if latency > .zero { try await Task.sleep(for: latency) }
        switch action {
        case .proceed:
            return try await next(request, context)
        case .fail(let status):
            return Envelope.failure(
                HTTPResponse.Status(code: status), code: "FAULT_INJECTED",
                message: "This failure was injected on purpose.")
        case .drop:
            context.channel.close(promise: nil)
            throw CancellationError()
        case .dropAfterHandling:
            _ = try await next(request, context)
            context.channel.close(promise: nil)
            throw CancellationError()
        }
    }
}

/// The request context of the backend's routes: Hummingbird's basics and the connection, so a
/// fault can drop it.
public struct BackendContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's connection.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
