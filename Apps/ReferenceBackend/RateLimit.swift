import CacheKit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How many requests a client may make to a rate-limited route: a token bucket per client address,
/// `burst` deep, refilled at `perSecond` (REQ AUTH-6).
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

    /// The default for `/auth/login` and `/auth/validate`: 60 at once, 10 a second after that per client.
    public static let auth = RateLimit(burst: 60, perSecond: 10)
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

    /// Takes a token for `client`; `nil` when allowed, else how long until one is back.
    func take(for client: String) -> TimeInterval? {
        let now = now()
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * limit.perSecond)
            bucket.updated = now
            defer {
                buckets[client] = bucket
                // Full buckets say nothing: forget them, so memory follows the clients that are limited.
                if buckets.count > 10_000 { buckets = buckets.filter { $0.value.tokens < Double(limit.burst) } }
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / limit.perSecond }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Answers `request` through `next` when `client` is within the limit, else 429.
    func limit(
        _ request: Request, _ context: BackendContext, _ next: (Request, BackendContext) async throws -> Response
    ) async throws -> Response {
        let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard let wait = take(for: client) else { return try await next(request, context) }
        var response = Envelope.failure(.tooManyRequests, code: "RATE_LIMITED", message: "Too many requests; try again later.")
        if let retryAfter = HTTPField.Name("Retry-After") {
            response.headers[retryAfter] = String(Int(wait.rounded(.up)))
        }
        return response
    }
}
