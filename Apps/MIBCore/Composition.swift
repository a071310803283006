import APICore
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import SessionKit

/// The composition root, as an app builds it: every kit that exists registered into one
/// ``DependencyContainer`` (verified at start), one ``UnifiedCacheManager``, and the REST and
/// GraphQL clients sharing one transport, session and auth-event stream. `mib demo`, `mib e2e` and
/// `mib inspect` each build one against a backend.
public final class Composition: Sendable {
    /// The clock every cache reads; the story advances it ("five minutes later").
    public let clock = DemoClock()
    /// The session (SessionKit): sign-in, expiry on any 401, logout; the clients' token provider.
    public let session: SessionManager
    /// Online or offline, inferred from every request (and a probe of `/health` while offline).
    public let connectivity: TransportConnectivity
    /// Counts what reaches the network, by path; reports each outcome to ``connectivity``.
    public let transport: CountingTransport
    /// Changes made offline (favorites), sent in order when the network returns.
    public let queue: MutationQueue
    /// The user's small settings, erased with the account.
    public let preferences: PreferencesStore
    /// Foreground and push hooks.
    public let lifecycle: AppLifecycle
    /// Whether a logout keeps the user's queued changes for their next sign-in (else discards them).
    public let keepsQueueAtLogout: Bool
    /// The caches' clock, metrics, logger and folder.
    public let environment: CacheEnvironment
    /// Clears and inspects every cache at once.
    public let unified: UnifiedCacheManager
    /// The kits' registrations.
    public let container: DependencyContainer
    /// REST through the HTTP cache.
    public let rest: RESTClient
    /// GraphQL through the normalized cache.
    public let graphQL: GraphQLClient
    /// The funnel catalog (CatalogKit), through a cache of its own.
    public let catalog: CatalogClient
    /// The user's favorite funnels (CatalogKit), changed through ``queue``.
    public let favorites: CatalogFavorites
    /// The chat history, today's prediction, astro data and the subscription (ChatHistoryKit).
    public let chat: ChatHistoryClient
    /// Accounts, balances, transactions and payments (AccountsKit), over the GraphQL client.
    public let accounts: AccountsClient
    /// The backend's base URL.
    public let baseURL: URL

    /// The session's token file, in the support folder: never under the caches folder, which the
    /// system may purge.
    public let tokenFile: URL

    /// Wires everything against `baseURL`, with disk caches under `cachesDirectory` and what must
    /// not be purged (the session's token) under `supportDirectory`.
    /// - Parameters:
    ///   - supportDirectory: the app's application-support folder; by default a sibling of
    ///     `cachesDirectory` named after it with `-support` (a real app passes
    ///     `FileTokenStore.defaultURL(app:)`'s folder, or uses the Keychain on Apple platforms).
    /// - Throws: ``ContainerError`` when a kit's registration conflicts with another's.
    ///   - keepsQueueAtLogout: whether a logout keeps the user's queued changes for their next sign-in.
    public init(baseURL: URL, cachesDirectory: URL, supportDirectory: URL? = nil, keepsQueueAtLogout: Bool = true,
                logger: Logger) throws {
        self.baseURL = baseURL
        self.keepsQueueAtLogout = keepsQueueAtLogout
        let support = supportDirectory ?? cachesDirectory.deletingLastPathComponent()
            .appendingPathComponent(cachesDirectory.lastPathComponent + "-support")
        tokenFile = support.appendingPathComponent("session/token.json")
        connectivity = TransportConnectivity(probe: baseURL.appendingPathComponent("health"))
        transport = CountingTransport(connectivity.observing(URLSessionTransport()))
        preferences = PreferencesStore(url: support.appendingPathComponent("preferences.json"))
        environment = CacheEnvironment(clock: clock, logger: logger, cachesDirectory: cachesDirectory)
        unified = UnifiedCacheManager(timeouts: environment.timeouts, logger: logger)
        container = DependencyContainer(cacheManager: unified)
        let authEvents = AuthEvents()
        session = SessionManager(configuration: .init(
            baseURL: baseURL, transport: transport,
            tokenStore: FileTokenStore(url: tokenFile),
            caches: unified, authEvents: authEvents, logger: logger, connectivity: connectivity))
        lifecycle = AppLifecycle(caches: unified, clock: clock)
        rest = RESTClient(configuration: .init(baseURL: baseURL, transport: transport, environment: environment,
                                               tokenProvider: session, retry: .none, authEvents: authEvents))
        graphQL = GraphQLClient(configuration: .init(
            endpoint: baseURL.appendingPathComponent("graphql"), transport: transport, environment: environment,
            tokenProvider: session, container: container, retry: .none, authEvents: authEvents))
        queue = MutationQueue(configuration: .init(
            directory: support.appendingPathComponent("mutations"), tokenProvider: session, rest: rest, graphQL: graphQL,
            container: container, clock: clock, logger: logger))
        let chatKit = try ChatHistoryFeatureKit(rest: rest, queue: queue, environment: environment, timeZone: TimeZone(identifier: "UTC") ?? .current)
        try container.install([SessionFeatureKit(session: session), CatalogFeatureKit(sharing: rest.configuration, queue: queue), AccountsFeatureKit(),
                               chatKit])
        let graphQL = self.graphQL
        try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
        try container.verify()
        catalog = try container.resolver(for: "app").resolve(CatalogClient.self)
        accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
        favorites = try container.resolver(for: "app").resolve(CatalogFavorites.self)
        chat = try container.resolver(for: "app").resolve(ChatHistoryClient.self)
        let chat = self.chat
        session.addEraser("chat history") { userId in try chat.erase(userId: userId) }
        // Account deletion erases what is not a cache: the queue and the preferences.
        let queue = self.queue, preferences = self.preferences
        session.addEraser("mutation queue") { userId in
            if let userId { await queue.erase(userId: userId) }
        }
        session.addEraser("preferences") { _ in try preferences.erase() }
        unified.register(rest.cacheParticipant)
        unified.register(graphQL)
    }

    /// Runs `body` against `server`, or against a reference backend started for the call (its data in
    /// `directory`, stopped afterwards) when `server` is `nil`.
    public static func withBackend<T>(_ server: URL?, in directory: URL, logger: Logger,
                                      _ body: (URL) async throws -> T) async throws -> T {
        if let server { return try await body(server) }
        let backend = try await ReferenceBackend.start(.init(
            databaseURL: directory.appendingPathComponent("backend.sqlite"), logger: logger))
        do {
            let result = try await body(backend.baseURL)
            await backend.stop()
            return result
        } catch {
            await backend.stop()
            throw error
        }
    }

    /// A logger that stays silent, for runs that print their own report.
    static var quietLogger: Logger {
        var logger = Logger(label: "mib")
        logger.logLevel = .critical
        return logger
    }

    /// Signs in through the session.
    /// - Returns: the user's id.
    @discardableResult
    public func signIn(email: String = "alice@example.com", password: String = "Password1") async throws -> String {
        let user = try await session.signIn(email: email, password: password).userId
        await queue.start(connectivity: connectivity)
        await chat.followQueue()
        return user
    }

    /// Logs out through the session: the server is told (its failure does not matter), every cache
    /// cleared, the token deleted.
    /// - Returns: the clearing's report and how long the whole logout took.
    public func logOut() async -> (report: ClearingReport, duration: Duration) {
        let started = ContinuousClock.now
        let user = session.current.user?.userId
        let report = await session.logOut()
        if let user { await queue.endSession(of: user, keepingQueue: keepsQueueAtLogout) }
        return (report, ContinuousClock.now - started)
    }

    /// Waits until the session reaches a state `matching` says is the one (such as an expiry), at
    /// most `limit`; `nil` when it never does.
    public func waitForSession(limit: Duration = .seconds(30),
                               _ matching: @escaping @Sendable (SessionState) -> Bool) async -> SessionState? {
        let session = session
        return try? await withDeadline(limit, "the session state") { () async -> SessionState? in
            for await state in session.states() where matching(state) { return state }
            return nil
        }
    }

    /// Every page of the catalog (50 a page) through CatalogKit, cache first.
    public func loadCatalog() async throws -> CatalogListing {
        try await catalog.allPages()
    }

    /// Account `id`'s balance in cents.
    public func balance(of id: String = "100", policy: CachePolicy = .default) async throws -> Int {
        try await accounts.balance(accountId: id, policy: policy).value.amount
    }

    /// Sends an admin request to the backend, bypassing every cache.
    func admin(_ method: HTTPRequest.Method, _ path: String, json: String? = nil) async throws {
        var fields = HTTPFields()
        if json != nil { fields[.contentType] = "application/json" }
        let response = try await transport.send(TransportRequest(
            method: method, url: baseURL.appendingPathComponent(path), headerFields: fields,
            body: json.map { Data($0.utf8) }, timeout: .seconds(10)))
        guard (200..<300).contains(response.status) else {
            throw DemoError.unexpected("\(method) \(path) answered \(response.status)")
        }
    }

    /// Entries left in every store.
    public func entryCount() async -> Int {
        await unified.statistics().reduce(0) { $0 + $1.usage.count }
    }
}

extension CatalogListing {
    /// "300 funnels: 6 hit" and the like.
    public var summary: String {
        let parts = [(ResponseSource.cache, "hit"), (.revalidated, "304"), (.network, "network")].compactMap { source, label in
            sources[source].map { "\($0) \(label)" }
        }
        return "\(funnels.count) funnels: " + parts.joined(separator: ", ") + (restarts > 0 ? ", restarted once" : "")
    }
}
