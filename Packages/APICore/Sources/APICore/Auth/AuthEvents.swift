import CacheKit

/// A 401 or 403 a request received, published so the session can expire and caches be cleared.
public struct AuthEvent: Sendable, Hashable {
    /// Which status it was.
    public enum Kind: Sendable, Hashable {
        /// 401: the token is missing, invalid or expired.
        case unauthorized
        /// 403: the user may not access the resource.
        case forbidden
    }

    /// 401 or 403.
    public var kind: Kind
    /// The user whose token was sent, if any.
    public var userId: String?
    /// The request's path (no query, so no identifiers from it).
    public var path: String

    /// Creates an event (clients publish them; tests and custom transports may too).
    public init(kind: Kind, userId: String?, path: String) {
        self.kind = kind
        self.userId = userId
        self.path = path
    }
}

/// Broadcasts ``AuthEvent``s: every call to ``stream()`` is a new subscriber that receives every
/// event published after it subscribed, until it stops iterating.
public final class AuthEvents: Sendable {
    private let subscribers = Locked<[Int: AsyncStream<AuthEvent>.Continuation]>([:])
    private let nextID = Locked(0)

    /// Creates a broadcaster with no subscribers.
    public init() {}

    /// A new subscription.
    public func stream() -> AsyncStream<AuthEvent> {
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self)
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Delivers `event` to every subscriber.
    public func publish(_ event: AuthEvent) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(event)
        }
    }
}
