import Foundation
import Logging

/// Sends through a transport with bounded retries and publishes 401/403 as ``AuthEvent``s: the
/// network step shared by ``RESTClient`` and ``GraphQLClient``.
struct RetryingSender: Sendable {
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let sleeper: any Sleeper
    let logger: Logger
    let authEvents: AuthEvents

    /// Sends `request`; an idempotent one is retried on transport errors and 500/502/503/504 with
    /// backoff. The last response (even a 5xx) is returned; the last transport error is thrown.
    func send(_ request: TransportRequest, idempotent: Bool, requester: String?) async throws(APIError) -> TransportResponse {
        var attempt = 1
        while true {
            let failure: TransportError
            do {
                let response = try await transport.send(request)
                guard idempotent, attempt < retry.maxAttempts,
                    RetryPolicy.retriableStatuses.contains(response.status)
                else {
                    publishAuthEvent(status: response.status, path: request.url.path, requester: requester)
                    return response
                }
                failure = .other(reason: "HTTP \(response.status)")
            } catch {
                if error == .cancelled || Task.isCancelled { throw .cancelled }
                guard idempotent, attempt < retry.maxAttempts else { throw .transport(error) }
                failure = error
            }
            let delay = retry.delay(beforeRetry: attempt, unit: Double.random(in: 0...1))
            logger.debug(
                "Retrying",
                metadata: [
                    "path": "\(request.url.path)", "attempt": "\(attempt + 1)", "delay": "\(delay)", "after": "\(failure)",
                ])
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
