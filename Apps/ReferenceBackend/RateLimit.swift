import CacheKit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How many requests a client may make: a token bucket per client address, `burst` deep, refilled at
/// `perSecond`.
public struct RateLimit: Sendable, Hashable {
    /// Requests a client may make at once.
    public var burst: Int
    /// Requests added back per second.
    public var perSecond: Double

    /// Creates a limit.
    public init(burst: Int, perSecond: Double) {
        self.burst = max(1, burst)
        self.perSecond = max(0.001, perSecond)
    }
}

/// The limits of the auth endpoints, per client address (REQ AUTH-6).
public struct AuthRateLimits: Sendable, Hashable {
    /// Failed sign-ins (`POST /auth/login` answered 401): 10 at once, then one every 5 seconds. Past it,
    /// every sign-in is refused before the password is checked, so guessing is slowed; successful
    /// sign-ins spend nothing.
    public var failedLogins: RateLimit
    /// `GET /auth/validate`: 300 at once, then 100 a second (it reads no database, but is not free).
    public var validation: RateLimit

    /// Creates the limits.
    public init(
        failedLogins: RateLimit = RateLimit(burst: 10, perSecond: 0.2), validation: RateLimit = RateLimit(burst: 300, perSecond: 100)
    ) {
        self.failedLogins = failedLogins
        self.validation = validation
    }
}

/// Token buckets by client, on the backend's clock. Past the limit a request gets 429 with `Retry-After`
/// (whole seconds until a token is back) and the usual error envelope (`RATE_LIMITED`).
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    let limit: RateLimit
    private let now: @Sendable () -> Date
    private let buckets = Locked<[String: Bucket]>([:])

    init(limit: RateLimit, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.now = now
    }

    /// Answers `request` through `next` when `client` has a token, else 429. The token is spent when
    /// `spends` says so of the answer (every answer by default).
    func limit(
        _ request: Request, _ context: BackendContext, spends: (Response) -> Bool = { _ in true },
        _ next: (Request, BackendContext) async throws -> Response
    ) async throws -> Response {
        let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let wait = wait(for: client) {
            var response = Envelope.failure(.tooManyRequests, code: "RATE_LIMITED", message: "Too many requests; try again later.")
            if let retryAfter = HTTPField.Name("Retry-After") {
                response.headers[retryAfter] = String(Int(wait.rounded(.up)))
            }
            return response
        }
        let response = try await next(request, context)
        if spends(response) { spend(for: client) }
        return response
    }

    /// `nil` when `client` has a token, else how long until one is back.
    func wait(for client: String) -> TimeInterval? {
        let now = now()
        return buckets.withLock { buckets in
            guard let bucket = buckets[client].map({ refilled($0, at: now) }), bucket.tokens < 1 else { return nil }
            return (1 - bucket.tokens) / limit.perSecond
        }
    }

    /// Spends one of `client`'s tokens.
    func spend(for client: String) {
        let now = now()
        buckets.withLock { buckets in
            var bucket = buckets[client].map { refilled($0, at: now) } ?? Bucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = max(0, bucket.tokens - 1)
            buckets[client] = bucket
            // Full buckets say nothing: forget them, so memory follows the clients being limited.
            if buckets.count > 10_000 {
                buckets = buckets.filter { refilled($0.value, at: now).tokens < Double(limit.burst) }
            }
        }
    }

    private func refilled(_ bucket: Bucket, at now: Date) -> Bucket {
        let tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * limit.perSecond)
        return Bucket(tokens: tokens, updated: now)
    }
}
