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

/// The limits of the auth endpoints, per client address and, for sign-ins, per account too (REQ AUTH-6).
public struct AuthRateLimits: Sendable, Hashable {
    /// Failed sign-ins (`POST /auth/login` answered 401): 10 at once, then one every 5 seconds, for each
    /// client address and, separately, for each e-mail (so guesses spread over many addresses still
    /// slow down on one account). Past it, every sign-in is refused before the password is checked; a
    /// token is taken before the check and given back for a successful sign-in.
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

    /// Answers `request` through `next` when every one of `keys` (the client's address by default) has a
    /// token, else 429. The tokens are **taken before** `next` runs, so parallel requests cannot pass on one
    /// token; they are given back when `spends` says the answer costs nothing (a successful sign-in).
    func limit(
        _ request: Request, _ context: BackendContext, keys: [String]? = nil, spends: (Response) -> Bool = { _ in true },
        _ next: (Request, BackendContext) async throws -> Response
    ) async throws -> Response {
        let keys = keys ?? [Self.client(context)]
        if let wait = take(keys) {
            var response = Envelope.failure(.tooManyRequests, code: "RATE_LIMITED", message: "Too many requests; try again later.")
            if let retryAfter = HTTPField.Name("Retry-After") {
                response.headers[retryAfter] = String(Int(wait.rounded(.up)))
            }
            return response
        }
        let response = try await next(request, context)
        if !spends(response) { giveBack(keys) }
        return response
    }

    /// The key of the client's address.
    static func client(_ context: BackendContext) -> String {
        "client:" + (context.channel.remoteAddress?.ipAddress ?? "unknown")
    }

    /// Takes a token from each of `keys`, all or none: `nil` when taken, else how long until the emptiest
    /// bucket has one again.
    func take(_ keys: [String]) -> TimeInterval? {
        let now = now()
        return buckets.withLock { buckets in
            let current = keys.map { buckets[$0].map { refilled($0, at: now) } ?? Bucket(tokens: Double(limit.burst), updated: now) }
            if let emptiest = current.map(\.tokens).min(), emptiest < 1 { return (1 - emptiest) / limit.perSecond }
            for (key, bucket) in zip(keys, current) { buckets[key] = Bucket(tokens: bucket.tokens - 1, updated: now) }
            // Full buckets say nothing: forget them, so memory follows the clients being limited.
            if buckets.count > 10_000 {
                buckets = buckets.filter { refilled($0.value, at: now).tokens < Double(limit.burst) }
            }
            return nil
        }
    }

    /// Gives back the tokens `take` took for an answer that costs nothing.
    func giveBack(_ keys: [String]) {
        let now = now()
        buckets.withLock { buckets in
            for key in keys {
                guard let bucket = buckets[key].map({ refilled($0, at: now) }) else { continue }
                buckets[key] = Bucket(tokens: min(Double(limit.burst), bucket.tokens + 1), updated: now)
            }
        }
    }

    private func refilled(_ bucket: Bucket, at now: Date) -> Bucket {
        let tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * limit.perSecond)
        return Bucket(tokens: tokens, updated: now)
    }
}
