import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// The session: sign-in, token validation at launch, expiry on any 401 or 403, logout, account
/// switch and account deletion (REQ AUTH-1, AUTH-2, AUTH-15, AUTH-16; the clearing
/// scenarios of REQ ARC-5; REQ OFF-9). It is the clients' `TokenProvider`.
///
/// The rule above all others: after logout, expiry or account deletion nothing of the previous user
/// can be read from any cache. Each of them first stops handing out the token (so no request
/// leaves with it), cancels the work registered with ``cancelOnSessionEnd(_:)``, then runs
/// `UnifiedCacheManager/clearAllCaches()` and deletes the stored token; the new state is published
/// last, so whoever sees `signedOut` or `expired` can rely on nothing of the user being left.
///
/// ```swift
/// let tokenFile = support.appendingPathComponent("session/token.json")
/// let session = SessionManager(configuration: .init(baseURL: api, tokenStore: FileTokenStore(url: tokenFile),
///                                                   caches: unified, authEvents: events))
/// let rest = RESTClient(configuration: .init(baseURL: api, tokenProvider: session, authEvents: events))
/// await session.launch()
/// for await state in session.states() { render(state) }
/// ```
public final class SessionManager: TokenProvider {
    /// How the session is set up.
    public struct Configuration: Sendable {
        /// The server: `/auth/login`, `/auth/validate`, `/auth/logout` are relative to it.
        public var baseURL: URL
        /// What sends the session's own requests (never cached).
        public var transport: any HTTPTransport
        /// Where the token is kept between launches.
        public var tokenStore: any TokenStore
        /// Every cache, cleared at logout, expiry and deletion.
        public var caches: UnifiedCacheManager
        /// The 401 and 403 responses of every client; the session subscribes at once.
        public var authEvents: AuthEvents
        /// How long the session's requests may take.
        public var requestTimeout: Duration
        /// Where the session logs (never a token or an e-mail).
        public var logger: Logger
        /// When set, a launch that went offline is revalidated as soon as the network returns.
        public var connectivity: (any Connectivity)?
        /// How long a session may go on offline after the server last accepted its token (72 hours by
        /// default: a weekend away from a network). Past it, or past the token's own expiry, the
        /// session ends on the device and everything of the user is cleared, as for a 401: a session
        /// revoked on the server while the device stays offline cannot show cached data for ever.
        public var offlineGrace: Duration
        /// The default ``offlineGrace``: 72 hours.
        public static let defaultOfflineGrace: Duration = .seconds(72 * 3_600)
        /// The device's clock, read for the token's expiry and the offline grace.
        public var now: @Sendable () -> Date
        /// The keys the server gave this device at its sign-ins, shown at the next ones (a budget of failed
        /// sign-ins a stranger cannot spend); `nil` to keep none.
        public var deviceKeys: DeviceKeys?

        /// Creates a configuration.
        public init(
            baseURL: URL, transport: any HTTPTransport = URLSessionTransport(), tokenStore: any TokenStore,
            caches: UnifiedCacheManager, authEvents: AuthEvents, requestTimeout: Duration = .seconds(10),
            logger: Logger = Logger(label: "SessionKit"), connectivity: (any Connectivity)? = nil,
            offlineGrace: Duration = defaultOfflineGrace, now: @escaping @Sendable () -> Date = Date.init,
            deviceKeys: DeviceKeys? = nil
        ) {
            self.deviceKeys = deviceKeys
            self.connectivity = connectivity
            self.offlineGrace = offlineGrace
            self.now = now
            self.baseURL = baseURL
            self.transport = transport
            self.tokenStore = tokenStore
            self.caches = caches
            self.authEvents = authEvents
            self.requestTimeout = requestTimeout
            self.logger = logger
        }
    }

    struct State {
        var session: SessionState = .signedOut
        var token: StoredToken?
        var observers: [Int: AsyncStream<SessionState>.Continuation] = [:]
        var nextObserver = 0
        var work: [Int: @Sendable () -> Void] = [:]
        var handledAuthEvents = 0
        var nextWork = 0
        var erasers: [(name: String, erase: @Sendable (_ userId: String?) async throws -> Void)] = []
        var endHandlers: [@Sendable (SessionEnd) async -> Void] = []
    }

    /// The configuration.
    public let configuration: Configuration
    let state = Locked(State())
    /// Held by every write and deletion of the stored token, around the check of ``State/token`` that allows it
    /// (``saveToken(_:replacing:save:_:)``): a write for a token the session no longer holds (a check answered after a
    /// logout, another user's sign-in) never lands after the ending's deletion or the next user's save. Taken
    /// before ``state`` when both are held, never inside it.
    let tokenFile = Locked(())
    private let listener = Locked<Task<Void, Never>?>(nil)
    private let reconnection = Locked<Task<Void, Never>?>(nil)

    /// Creates a signed-out session and subscribes to ``Configuration/authEvents``. Call
    /// ``launch()`` to pick up a stored token.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let events = configuration.authEvents.stream()
        let task = Task { [weak self] in
            for await event in events {
                await self?.handle(event)
            }
        }
        listener.withLock { $0 = task }
        let revalidation = configuration.connectivity?.whenOnlineAgain { [weak self] in await self?.revalidate() }
        reconnection.withLock { $0 = revalidation }
    }

    deinit {
        listener.withLock { $0?.cancel() }
        reconnection.withLock { $0?.cancel() }
    }

    // MARK: Observing

    /// The state now.
    public var current: SessionState { state.withLock { $0.session } }

    /// How many 401/403 events the session has finished handling, ignored ones included (events are
    /// handled one at a time, in order): for diagnostics, and for tests that must check the outcome
    /// only after every event was handled.
    public var handledAuthEvents: Int { state.withLock { $0.handledAuthEvents } }

    /// The current state, then every change, until the consumer stops iterating.
    public func states() -> AsyncStream<SessionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionState.self)
        let id = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            continuation.yield(state.session)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The token for the clients while signed in (or offline); `nil` otherwise. Offline past the token's
    /// limits (``StoredToken/offlineLimit(at:grace:)``), the session ends first; signed in past them (the
    /// grace since the server's last word, or the clock set back), the server is asked again first, so a
    /// session that stays up without a network is limited as an offline launch is. Each use moves the
    /// clock's high-water mark on.
    public func currentCredentials() async -> Credentials? {
        await credentials(checkingWithServer: true)
    }

    private func credentials(checkingWithServer: Bool) async -> Credentials? {
        let (token, session) = state.withLock { state -> (StoredToken?, SessionState) in
            guard state.session.user != nil || state.session == .validating else { return (nil, state.session) }
            return (state.token, state.session)
        }
        guard let token else { return nil }
        let limit = offlineLimit(of: token)
        switch session {
        case .validating:
            // While the launch's check runs, a token past its limits waits for the server's word.
            if limit != nil { return nil }
        case .offline:
            if let limit {
                await endOffline(token, reason: limit)
                return nil
            }
        default:
            if limit != nil {
                guard checkingWithServer else { return nil }
                await validate(token)
                return await credentials(checkingWithServer: false)
            }
        }
        markSeen(token)
        return Credentials(accessToken: token.accessToken, userId: token.userId)
    }

    /// Moves the clock's high-water mark on to now, kept with the token once it has moved by more than the
    /// tolerance (a write at most every five minutes of use), so a date set back while the app runs is seen.
    private func markSeen(_ token: StoredToken) {
        let now = configuration.now()
        guard now.timeIntervalSince(token.lastSeenAt ?? token.validatedAt ?? .distantPast) > StoredToken.clockTolerance else { return }
        var seen = token
        seen.lastSeenAt = now
        saveToken(seen, replacing: token) { _ in }
    }

    /// Replaces `old` with `new` in the state (with `alsoChanging`, as one ``transition(_:)``) and in the stored
    /// file, only while `old` is still the session's token; `save: false` changes the state only. The check and the
    /// write hold ``tokenFile``, as the ending's deletion and a sign-in's save do, so a token the session has let go
    /// of is never written back. Returns whether `old` was replaced.
    @discardableResult
    func saveToken(_ new: StoredToken, replacing old: StoredToken, save: Bool = true, _ alsoChanging: (inout State) -> Void) -> Bool {
        tokenFile.withLock { _ in
            var (replaced, write) = (false, false)
            transition { state in
                guard let held = state.token, held == old else { return }
                // Another call already holds the same token seen as late (``StoredToken/==`` ignores `lastSeenAt`): the
                // mark never moves back, and concurrent marks make one write, not one each.
                let holdsItAlready = held == new && (held.lastSeenAt ?? .distantPast) >= (new.lastSeenAt ?? .distantPast)
                if !holdsItAlready { state.token = new }
                alsoChanging(&state)
                replaced = true
                write = save && !holdsItAlready
            }
            if write { try? configuration.tokenStore.save(new) }
            return replaced
        }
    }

    /// Sets the state and tells every observer, under the lock, so they see changes in order.
    func transition(_ body: (inout State) -> Void) {
        state.withLock { state in
            let before = state.session
            body(&state)
            guard state.session != before else { return }
            for observer in state.observers.values { observer.yield(state.session) }
        }
    }

    // MARK: Requests

    func send(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, body: Data? = nil, fields extra: HTTPFields = [:])
        async throws(TransportError) -> TransportResponse
    {
        var fields: HTTPFields = extra
        fields[.accept] = "application/json"
        if let token { fields[.authorization] = "Bearer \(token)" }
        if body != nil { fields[.contentType] = "application/json" }
        let url = configuration.baseURL.appendingPathComponent(String(path.dropFirst()))
        return try await configuration.transport.send(
            TransportRequest(
                method: method, url: url, headerFields: fields,
                body: body, timeout: configuration.requestTimeout))
    }
}
