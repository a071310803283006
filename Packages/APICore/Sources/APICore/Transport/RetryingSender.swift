import CacheKit
import Foundation
import HTTPTypes
import Logging

/// Sends through a transport with bounded retries, reports every exchange and retry to telemetry, and
/// publishes 401/403 as ``AuthEvent``s: the network step shared by `RESTClient` and `GraphQLClient`.
package struct RetryingSender: Sendable {
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let sleeper: any Sleeper
    let logger: Logger
    let authEvents: AuthEvents
    let telemetry: APITelemetry
    let clock: any CacheClock

    package init(
        transport: any HTTPTransport, retry: RetryPolicy, sleeper: any Sleeper, logger: Logger,
        authEvents: AuthEvents, telemetry: APITelemetry, clock: any CacheClock
    ) {
        self.transport = transport
        self.retry = retry
        self.sleeper = sleeper
        self.logger = logger
        self.authEvents = authEvents
        self.telemetry = telemetry
        self.clock = clock
    }

    /// Sends `request`; an idempotent one is retried on transport errors and 429/500/502/503/504, waiting
    /// what a 429's or 503's `Retry-After` asks (through the sleeper, against the clock) or else the policy's
    /// backoff. A `Retry-After` longer than ``RetryPolicy/maxRetryAfter`` is not waited for: that response
    /// is returned at once. The last response (even a 5xx) is returned; the last transport error is thrown.
    /// - Parameter requester: the user whose session token the request carries, `nil` when it carries none;
    ///   only a 401 or 403 to a request that carried one is published as an ``AuthEvent``.
    package func send(_ request: TransportRequest, idempotent: Bool, requester: String?, endpoint: String) async throws(APIError)
        -> TransportResponse
    {
        var attempt = 1
        while true {
            let failure: TransportError
            var asked: Duration?
            do {
                let response = try await transport.send(request)
                let retriable = RetryPolicy.retriableStatuses.contains(response.status)
                if response.status == 429 || response.status == 503 {
                    asked = RetryAfter.delay(in: response.headerFields, now: clock.now())
                }
                let waitAllowed = asked.map { $0 <= retry.maxRetryAfter } ?? true
                guard idempotent, attempt < retry.maxAttempts, retriable, waitAllowed else {
                    telemetry.recordExchange(failed: response.status >= 500)
                    if attempt > 1 {
                        telemetry.recordRetry(endpoint: endpoint, attempt: attempt, outcome: retriable ? .gaveUp : .succeeded)
                    }
                    // Only an answer to the session's own token speaks of the session: a 401 to a request that
                    // carried none (another origin's image, whatever Authorization of its own it sent) ends nothing.
                    if let requester {
                        publishAuthEvent(status: response.status, path: request.url.path, requester: requester)
                    }
                    return response
                }
                failure = .other(reason: "HTTP \(response.status)")
            } catch {
                if error == .cancelled || Task.isCancelled { throw .cancelled }
                // A pin mismatch, a request that cannot be written or an answer too large is the same on every
                // attempt: never retried.
                let retriable: Bool =
                    switch error {
                    case .pinMismatch, .invalidRequest, .responseTooLarge: false
                    default: true
                    }
                guard idempotent, attempt < retry.maxAttempts, retriable else {
                    telemetry.recordExchange(failed: true)
                    if attempt > 1 { telemetry.recordRetry(endpoint: endpoint, attempt: attempt, outcome: .gaveUp) }
                    throw .transport(error)
                }
                failure = error
            }
            if attempt > 1 { telemetry.recordRetry(endpoint: endpoint, attempt: attempt, outcome: .failed) }
            let delay = asked ?? retry.delay(beforeRetry: attempt, unit: Double.random(in: 0...1))
            logger.debug(
                "Retrying",
                metadata: ["endpoint": "\(endpoint)", "attempt": "\(attempt + 1)", "delay": "\(delay)", "after": "\(failure)"])
            do {
                try await sleeper.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    private func publishAuthEvent(status: Int, path: String, requester: String?) {
        let kind: AuthEvent.Kind
        switch status {
        case 401: kind = .unauthorized
        case 403: kind = .forbidden
        default: return
        }
        authEvents.publish(AuthEvent(kind: kind, userId: requester, path: path))
    }
}
