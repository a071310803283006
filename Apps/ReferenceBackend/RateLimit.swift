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
///
/// A stranger must not lock the owner out (security review two, finding 6): the account's own limit is far
/// higher than a client's, and a client that has signed in to the account before (a known client) is held
/// by its own limit only, so guesses from many addresses slow down on one account without emptying it for
/// the owner's device.
public struct AuthRateLimits: Sendable, Hashable {
    /// Failed sign-ins (`POST /auth/login` answered 401) from one client address: 10 at once, then one
    /// every 5 seconds. Past it, every sign-in from that address is refused before the password is
    /// checked; a token is taken before the check and given back for a successful sign-in.
    public var failedLogins: RateLimit
    /// Failed sign-ins to one account from clients not known to it, whatever their address: 100 at once,
    /// then one every 10 seconds (guesses spread over many addresses still slow down).
    public var failedLoginsPerAccount: RateLimit
    /// `GET /auth/validate`: 300 at once, then 100 a second (it reads no database, but is not free).
    public var validation: RateLimit

    /// Creates the limits.
    public init(
        failedLogins: RateLimit = RateLimit(burst: 10, perSecond: 0.2),
        failedLoginsPerAccount: RateLimit = RateLimit(burst: 100, perSecond: 0.1),
        validation: RateLimit = RateLimit(burst: 300, perSecond: 100)
    ) {
        self.failedLogins = failedLogins
        self.failedLoginsPerAccount = failedLoginsPerAccount
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
    /// The limit of keys starting with `account:`.
    let accountLimit: RateLimit
    private let now: @Sendable () -> Date
    private let buckets = Locked<[String: Bucket]>([:])
    /// The clients (addresses, device keys) that signed in successfully to each account, newest last, at most
    /// ``knownPerAccount`` each: a stranger's sign-ins to their own account never make another account forget its
    /// clients.
    private let known = Locked<[String: [String]]>([:])
    /// How many clients an account remembers; past it, its oldest is forgotten.
    static let knownPerAccount = 16

    init(limit: RateLimit, accountLimit: RateLimit? = nil, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.accountLimit = accountLimit ?? limit
        self.now = now
    }

    /// The buckets a sign-in to `account` from `client` takes a token of: the client's, and the account's
    /// unless the client has signed in to it before.
    func loginKeys(client: String, account: String) -> [String] {
        isKnown(client: client, account: account) ? [client] : [client, "account:" + account]
    }

    /// Whether `client` signed in to `account` before.
    func isKnown(client: String, account: String) -> Bool {
        known.withLock { $0[account]?.contains(client) ?? false }
    }

    /// Remembers that `client` signed in to `account`, as the account's newest client.
    func remember(client: String, account: String) {
        known.withLock { known in
            var clients = known[account, default: []]
            clients.removeAll { $0 == client }
            clients.append(client)
            if clients.count > Self.knownPerAccount { clients.removeFirst(clients.count - Self.knownPerAccount) }
            known[account] = clients
        }
    }

    private func limit(of key: String) -> RateLimit {
        key.hasPrefix("account:") ? accountLimit : limit
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
            let current = keys.map { key in
                buckets[key].map { refilled($0, key: key, at: now) } ?? Bucket(tokens: Double(limit(of: key).burst), updated: now)
            }
            let waits = zip(keys, current).filter { $0.1.tokens < 1 }.map { (1 - $0.1.tokens) / limit(of: $0.0).perSecond }
            if let longest = waits.max() { return longest }
            for (key, bucket) in zip(keys, current) { buckets[key] = Bucket(tokens: bucket.tokens - 1, updated: now) }
            // Full buckets say nothing: forget them, so memory follows the clients being limited.
            if buckets.count > 10_000 {
                buckets = buckets.filter { refilled($0.value, key: $0.key, at: now).tokens < Double(limit(of: $0.key).burst) }
            }
            return nil
        }
    }

    /// Gives back the tokens `take` took for an answer that costs nothing.
    func giveBack(_ keys: [String]) {
        let now = now()
        buckets.withLock { buckets in
            for key in keys {
                guard let bucket = buckets[key].map({ refilled($0, key: key, at: now) }) else { continue }
                buckets[key] = Bucket(tokens: min(Double(limit(of: key).burst), bucket.tokens + 1), updated: now)
            }
        }
    }

    private func refilled(_ bucket: Bucket, key: String, at now: Date) -> Bucket {
        let limit = limit(of: key)
        let tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * limit.perSecond)
        return Bucket(tokens: tokens, updated: now)
    }
}
