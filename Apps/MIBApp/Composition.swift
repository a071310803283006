import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import ContactsKit
import Foundation
import HTTPTypes
import Logging
import SessionKit

/// The composition root, as an app builds it: every kit that exists registered into one
/// ``DependencyContainer`` (verified at start), one ``UnifiedCacheManager``, and the REST and
/// GraphQL clients sharing one transport, session and auth-event stream.
///
/// This is the file an app copies: it links no server code. `mib demo`, `mib e2e` and `mib inspect`
/// (MIBCore) build one against the reference backend, with a clock they advance and no retries.
public final class Composition: Sendable {
    /// The clock every cache reads.
    public let clock: any CacheClock
    /// The session (SessionKit): sign-in, expiry on any 401, logout; the clients' token provider.
    public let session: SessionManager
    /// Online or offline, inferred from every request (and a probe of `/health` while offline).
    public let connectivity: TransportConnectivity
    /// What reaches the network; reports each outcome to ``connectivity``.
    public let transport: any HTTPTransport
    /// Changes made offline (favorites), sent in order when the network returns.
    public let queue: MutationQueue
    /// The app's own small settings (the telemetry choice), kept across accounts; each user's are in
    /// ``preferences(for:)``, erased with their account.
    public let appPreferences: PreferencesStore
    /// The users' preference stores opened so far, by user.
    let userPreferences = Locked<[String: PreferencesStore]>([:])
    /// The folder of the users' preference files.
    let userPreferencesDirectory: URL
    /// Foreground and push hooks.
    public let lifecycle: AppLifecycle
    /// Every API error and retry, counted without personal data, and the error-rate alert.
    public let telemetry: APITelemetry
    /// Screens' time-to-interactive, time on screen and the funnel; honours the user's opt-out.
    public let screens: ScreenTelemetry
    /// Whether a logout keeps the user's queued changes for their next sign-in (else discards them).
    public let keepsQueueAtLogout: Bool
    /// Whether the launch and a sign-in start each kit's first sync when the user has none completed.
    public let startsFirstSync: Bool
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
    /// The address book, offline first (ContactsKit).
    public let contacts: ContactsClient
    /// The app's one cache of small images (thumbnails), 200 MB, per user; kits resolve it from the container.
    public let images: ImageCache
    /// Every kit's sync, for the host's background-refresh task (`BGAppRefreshTask` on iOS) and `mib sync`.
    public let backgroundSync: BackgroundSync
    /// Accounts, balances, transactions and payments (AccountsKit), over the GraphQL client.
    public let accounts: AccountsClient
    /// The backend's base URL.
    public let baseURL: URL
    /// The session's token file, in the support folder (never under the caches folder, which the system
    /// may purge), where the Keychain is not available (Linux); on Apple platforms the token is in the
    /// Keychain.
    public let tokenFile: URL
    /// What the first screen showed last, drawn at the next launch before the composition is built
    /// (``lastFirstScreen(cachesDirectory:supportDirectory:offlineGrace:now:)``); dropped by any clearing.
    public let snapshots: ScreenSnapshots
    /// Whether the first screen's snapshot may be saved as current: only when its every part is read from stores
    /// that outlive the process (the GraphQL records in a file; the catalog's pages are on disk).
    let sealsFirstScreen: Bool

    /// Wires everything against `baseURL`, with disk caches under `cachesDirectory` and what must
    /// not be purged (the session's token) under `supportDirectory`.
    /// - Parameters:
    ///   - supportDirectory: the app's application-support folder; by default a sibling of
    ///     `cachesDirectory` named after it with `-support` (a real app passes
    ///     `FileTokenStore.defaultURL(app:)`'s folder, or uses the Keychain on Apple platforms).
    /// - Throws: ``ContainerError`` when a kit's registration conflicts with another's.
    ///   - keepsQueueAtLogout: whether a logout keeps the user's queued changes for their next sign-in.
    ///   - clock: what every cache reads the time from.
    ///   - transport: what every client (session, REST, GraphQL, the queue, every kit) sends through;
    ///     URLSession by default. An app that pins its backend's certificates (REQ SEC-1) passes
    ///     `PinnedTransport(policy:)` from `APICorePinning`, which refuses a connection that does not prove
    ///     a pinned key with ``TransportError/pinMismatch(host:)``. Wrapped so that every outcome informs
    ///     ``connectivity``.
    ///   - retry: how the REST and GraphQL clients retry idempotent requests.
    ///   - graphQLStore: where the normalized GraphQL records live: in memory by default, or a
    ///     ``SQLiteRecordStore`` for queries that must read offline after a relaunch.
    ///   - startsFirstSync: whether ``launch(offlineFirst:)`` and ``signIn(email:password:)`` start each kit's
    ///     first sync in the background when the user has none completed (`true` by default; a harness that
    ///     counts every request starts them itself).
    ///   - sessionRequestTimeout: how long a sign-in, a token check or a logout waits for the server (10 s).
    public init(
        baseURL: URL, cachesDirectory: URL, supportDirectory: URL? = nil, keepsQueueAtLogout: Bool = true,
        clock: any CacheClock = SystemClock(), transport: any HTTPTransport = URLSessionTransport(),
        retry: RetryPolicy = RetryPolicy(), logger: Logger, graphQLStore: any NormalizedRecordStore = InMemoryRecordStore(),
        startsFirstSync: Bool = true, sessionRequestTimeout: Duration = .seconds(10)
    ) throws {
        self.baseURL = baseURL
        self.clock = clock
        self.keepsQueueAtLogout = keepsQueueAtLogout
        self.startsFirstSync = startsFirstSync
        let support = supportDirectory ?? Self.defaultSupportDirectory(caches: cachesDirectory)
        tokenFile = Self.tokenFile(support: support)
        snapshots = ScreenSnapshots(directory: Self.snapshotsDirectory(caches: cachesDirectory), logger: logger)
        // Unless the first screen is drawn from its sealed snapshot, its two files (the GraphQL records here, the
        // catalog's cache below) are opened beside the rest of the composition, on Dispatch's threads (an opening blocks
        // its thread; Swift's shared pool is not for that): its read through the caches then finds them open. Nothing
        // is created.
        let opensFirstScreen = !snapshots.isSealed(Self.firstScreenName, at: clock.now())
        if opensFirstScreen { DispatchQueue.global(qos: .userInitiated).async { graphQLStore.prepare() } }
        sealsFirstScreen = graphQLStore.persistsAcrossLaunches
        connectivity = TransportConnectivity(probe: baseURL.appendingPathComponent("health"))
        let transport = connectivity.observing(transport)
        self.transport = transport
        appPreferences = PreferencesStore(url: support.appendingPathComponent("preferences.json", isDirectory: false))
        userPreferencesDirectory = support.appendingPathComponent("preferences", isDirectory: true)
        // The snapshots hear of every change to the stores, so a first screen saved as what they hold is unsealed
        // before they hold anything else.
        environment = CacheEnvironment(
            clock: clock, logger: logger, cachesDirectory: cachesDirectory, dataDirectory: support, storeChanges: snapshots)
        telemetry = APITelemetry(clock: clock, sinks: [LoggingTelemetrySink(logger: logger)])
        screens = ScreenTelemetry(
            clock: clock, optedOut: appPreferences.value(forKey: Self.telemetryOptOutKey, as: Bool.self) ?? false, logger: logger)
        unified = UnifiedCacheManager(timeouts: environment.timeouts, logger: logger)
        container = DependencyContainer(cacheManager: unified)
        let authEvents = AuthEvents()
        session = SessionManager(
            configuration: .init(
                baseURL: baseURL, transport: transport,
                tokenStore: Self.tokenStore(file: tokenFile),
                caches: unified, authEvents: authEvents, requestTimeout: sessionRequestTimeout, logger: logger,
                connectivity: connectivity, deviceKeys: DeviceKeys(url: Self.deviceKeysFile(support: support))))
        lifecycle = AppLifecycle(caches: unified, clock: clock)
        rest = RESTClient(
            configuration: .init(
                baseURL: baseURL, transport: transport, environment: environment,
                tokenProvider: session, retry: retry, authEvents: authEvents, telemetry: telemetry))
        graphQL = GraphQLClient(
            configuration: .init(
                endpoint: baseURL.appendingPathComponent("graphql"), transport: transport, environment: environment,
                tokenProvider: session, container: container, store: graphQLStore, retry: retry, authEvents: authEvents,
                telemetry: telemetry))
        queue = MutationQueue(
            configuration: .init(
                directory: support.appendingPathComponent("mutations", isDirectory: true), tokenProvider: session, rest: rest,
                graphQL: graphQL,
                container: container, clock: clock, logger: logger))
        let catalogKit = CatalogFeatureKit(sharing: rest.configuration, queue: queue)
        let catalogREST = catalogKit.client.rest
        if opensFirstScreen { DispatchQueue.global(qos: .userInitiated).async { catalogREST.prepareCache() } }
        let images = ImageCache(environment: environment)
        self.images = images
        try container.registry(for: "app").register(ImageCache.self) { _ in images }
        let chatKit = try ChatHistoryFeatureKit(
            rest: rest, queue: queue, environment: environment, timeZone: TimeZone(identifier: "UTC") ?? .current)
        let contactsKit = ContactsFeatureKit(rest: rest, queue: queue, environment: environment, images: images)
        try container.install([
            SessionFeatureKit(session: session), catalogKit, AccountsFeatureKit(),
            chatKit, contactsKit,
        ])
        let graphQL = self.graphQL
        try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
        try container.verify()
        catalog = try container.resolver(for: "app").resolve(CatalogClient.self)
        accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
        favorites = try container.resolver(for: "app").resolve(CatalogFavorites.self)
        chat = try container.resolver(for: "app").resolve(ChatHistoryClient.self)
        contacts = try container.resolver(for: "app").resolve(ContactsClient.self)
        backgroundSync = BackgroundSync(runners: container.syncRunners, clock: clock)
        let chat = self.chat
        // The session's erasers and handlers hold what they act on weakly: the session is held by every client
        // (their token provider), and a strong hold back would keep the whole composition alive.
        session.addEraser("chat history") { [weak chat] userId in try chat?.erase(userId: userId) }
        let contacts = self.contacts
        session.addEraser("contacts") { [weak contacts] userId in try contacts?.erase(userId: userId) }
        let accounts = self.accounts
        session.addEraser("payments") { [weak accounts] userId in try accounts?.erase(userId: userId) }
        // Back after more than an hour away: the address book catches up in the background.
        lifecycle.whenBackAfterLongAbsence { [weak contacts] in contacts?.syncInBackground() }
        // Account deletion erases what is not a cache: the queue and the preferences.
        let queue = self.queue
        // Every end of a session (logout, expiry of any cause, deletion, any sign-in): the queue forgets the
        // ended user's pending and refused changes in memory, so nothing it publishes is another user's; at a
        // logout it also discards their file unless the app keeps queues across logouts.
        let keepsQueue = keepsQueueAtLogout
        session.onSessionEnd { [weak queue] end in
            await queue?.sessionEnded()
            if end.cause == .logout, !keepsQueue, let user = end.userId { await queue?.erase(userId: user) }
        }
        // Signed out (after a logout or an expiry) the user is not known: every queue on the device goes.
        session.addEraser("mutation queue") { [weak queue] userId in
            if let userId { await queue?.erase(userId: userId) } else { await queue?.eraseAll() }
        }
        session.addEraser("preferences") { [weak self] userId in try self?.erasePreferences(of: userId) }
        // The device's sign-in keys outlive a logout (the owner's budget at the next sign-in); a deletion takes the
        // deleted user's.
        let deviceKeys = session.configuration.deviceKeys
        session.addEraser("device keys") { userId in deviceKeys?.erase(userId: userId) }
        unified.register(rest.cacheParticipant)
        unified.register(graphQL)
        unified.register(images)
        unified.register(snapshots)
        // Every clearing (logout, expiry, deletion, another user's sign-in) cancels the syncs going.
        unified.register(backgroundSync)
    }

    /// A composition dropped is freed with everything it built (REQ ARC-14): the container's instances and the
    /// cache manager's participants, which hold each other back through their clients, are let go. Keep the
    /// composition for as long as any of its parts is used.
    deinit {
        container.releaseInstances()
        unified.unregisterAll()
    }

    /// The image at `path` on the backend (a thumbnail) from ``images``, loaded once on a miss.
    /// - Throws: `ImageCacheError` when nobody is signed in, `path` is not a path on the backend (an
    ///   absolute URL), the load fails or its bytes are no image.
    public func thumbnail(_ path: String) async throws(ImageCacheError) -> Data {
        guard let user = await session.currentCredentials()?.userId else { throw .loadFailed(reason: "signed out") }
        // A path on the backend only: an address from server data never sends the app elsewhere.
        guard PathSegments.isServerPath(path) else { throw .loadFailed(reason: "not a path on the app's server") }
        do {
            return try await rest.image(at: path, for: user, in: images, feature: "images")
        } catch {
            throw error.imageCacheError
        }
    }

    /// Where the session's token is kept (security review, finding 2): the Keychain on Apple platforms
    /// (this device only, after first unlock), a 0600 file in a 0700 folder of the support directory
    /// elsewhere.
    static func tokenStore(file: URL) -> any TokenStore {
        #if canImport(Security)
            // One item per support folder: two compositions (tests running side by side, two app
            // instances) never read or overwrite each other's token.
            KeychainTokenStore(
                service: Bundle.main.bundleIdentifier ?? "MIBApp",
                account: "session-token-" + StableHash.hex(file.deletingLastPathComponent().standardizedFileURL.path))
        #else
            FileTokenStore(url: file)
        #endif
    }
}
