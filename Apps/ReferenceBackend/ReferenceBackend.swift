import APICore
import Foundation
import Hummingbird
import Logging

/// The reference backend: a real HTTP server (Hummingbird) on 127.0.0.1 with its data in SQLite,
/// implementing the server contracts (docs/requirements.md) for the demo and the end-to-end checks. Today: the funnel
/// catalog (REQ CAT), the auth endpoints (REQ AUTH), the bank's GraphQL endpoint, and the chat
/// history (REQ CHAT) and today's prediction, with faults on demand (``FaultRule``).
///
/// ```swift
/// let backend = try await ReferenceBackend.start(.init(databaseURL: folder.appendingPathComponent("backend.sqlite")))
/// defer { Task { await backend.stop() } }
/// let catalog = backend.baseURL.appendingPathComponent("api/funnels/catalog")
/// ```
public final class ReferenceBackend: Sendable {
    /// How the backend starts.
    public struct Configuration: Sendable {
        /// The SQLite file (created and seeded if missing).
        public var databaseURL: URL
        /// The port; 0 picks a free one.
        public var port: Int
        /// How many funnels a new database gets.
        public var funnelCount: Int
        /// The clock stamping changes and checking token expiry.
        public var now: @Sendable () -> Date
        /// How long a session token lives.
        public var tokenLifetime: TimeInterval
        /// Where request lines go (method, path, status, time; never a token or an e-mail).
        public var logger: Logger
        /// Faults injected from the start (they can be changed at `/admin/faults`).
        public var faults: [FaultRule]
        /// How long the simulated model takes to answer `/predict` and `/compatibility` (about 3 s, as
        /// a real one does; tests pass less).
        public var modelLatency: Duration
        /// The limits of `/auth/login` (failed attempts) and `/auth/validate` per client address; `nil` for none.
        public var authRateLimits: AuthRateLimits?
        /// What the server speaks: plain HTTP by default, or HTTPS from the `ReferenceBackendTLS` module.
        public var serverProtocol: ServerProtocol
        /// What one password check costs (scrypt) for the users a new database is seeded with.
        public var passwordWork: PasswordWork
        /// How many contacts each user's address book is seeded with on first use (10,000, the offline
        /// storage specification's figure; tests pass fewer).
        public var contactCount: Int
        /// Whether a page of chat threads embeds their messages on `include=messages` (a restore in one
        /// request a page). `false` answers as a server from before paged restore did (the client then asks
        /// one request a thread): the benchmark's baseline.
        public var chatPagesIncludeMessages = true
        /// Whether a contact or circle created by a client is stored under an id the server assigns (`srv-…`,
        /// answered as `data.id`), as most servers do, rather than the id the client chose.
        public var assignsIds = false

        /// Creates a configuration.
        public init(
            databaseURL: URL, port: Int = 0, funnelCount: Int = 300, now: @escaping @Sendable () -> Date = Date.init,
            tokenLifetime: TimeInterval = 3_600, faults: [FaultRule] = [], modelLatency: Duration = .seconds(3),
            authRateLimits: AuthRateLimits? = AuthRateLimits(), serverProtocol: ServerProtocol = .http,
            passwordWork: PasswordWork = .standard, contactCount: Int = 10_000, logger: Logger = Logger(label: "ReferenceBackend")
        ) {
            self.contactCount = contactCount
            self.serverProtocol = serverProtocol
            self.passwordWork = passwordWork
            self.modelLatency = modelLatency
            self.authRateLimits = authRateLimits
            self.tokenLifetime = tokenLifetime
            self.faults = faults
            self.databaseURL = databaseURL
            self.port = port
            self.funnelCount = funnelCount
            self.now = now
            self.logger = logger
        }
    }

    /// Where it listens: `http://127.0.0.1:<port>`.
    public var baseURL: URL { server.baseURL }
    /// The catalog's data, for checks and the demo.
    public let catalog: BackendDatabase
    private let server: LocalServer

    private init(server: LocalServer, catalog: BackendDatabase) {
        self.server = server
        self.catalog = catalog
    }

    /// Opens the database and starts listening on 127.0.0.1.
    /// - Throws: when the database cannot be opened, or ``LocalServerError`` when the port cannot be bound.
    public static func start(_ configuration: Configuration) async throws -> ReferenceBackend {
        let catalog = try BackendDatabase(
            url: configuration.databaseURL, funnelCount: configuration.funnelCount,
            now: configuration.now, passwordWork: configuration.passwordWork)
        let router = Router(context: BackendContext.self)
        router.add(middleware: RequestLog(logger: configuration.logger))
        // No DNS rebinding and no cross-site state change (its admin routes included).
        router.add(middleware: LoopbackGuard())
        let faults = Faults(configuration.faults)
        router.add(middleware: FaultMiddleware(faults: faults))
        let auth = AuthRoutes(
            database: catalog, signer: TokenSigner(lifetime: configuration.tokenLifetime, now: configuration.now),
            loginLimiter: configuration.authRateLimits.map {
                RateLimiter(limit: $0.failedLogins, accountLimit: $0.failedLoginsPerAccount, now: configuration.now)
            },
            validationLimiter: configuration.authRateLimits.map { RateLimiter(limit: $0.validation, now: configuration.now) })
        // Only a signed-in caller's keyed request is read whole to be fingerprinted: a stranger's body is never
        // buffered (the route answers 401 first).
        router.add(middleware: IdempotencyFingerprint(isSignedIn: { auth.claims($0) != nil }))
        router.put("admin/faults") { request, context in
            guard let rules = try? await request.decode(as: [FaultRule].self, context: context) else {
                return Envelope.failure(.badRequest, code: "INVALID_FAULTS", message: "Send a JSON array of fault rules.")
            }
            guard rules.count <= FaultRule.maximumRules else {
                return Envelope.failure(
                    .badRequest, code: "INVALID_FAULTS", message: "At most \(FaultRule.maximumRules) rules at once.")
            }
            if let problem = rules.lazy.compactMap(\.problem).first {
                return Envelope.failure(.badRequest, code: "INVALID_FAULTS", message: problem)
            }
            faults.replace(rules)
            return Response(status: .noContent)
        }
        router.get("admin/faults") { _, _ in try Envelope.success(faults.rules) }
        // What clients probe while offline: any answer means the server is reachable.
        router.get("health") { _, _ in Response(status: .noContent) }
        router.delete("admin/faults") { _, _ in
            faults.replace([])
            return Response(status: .noContent)
        }
        CatalogRoutes(database: catalog).register(on: router)
        auth.register(on: router)
        GraphQLRoute(bank: try BankGraphQL(database: catalog), auth: auth).register(on: router)
        let cache = InMemoryBackendCache()
        ChatRoutes(
            database: catalog, auth: auth, predictions: PredictionCache(cache: cache),
            includesMessages: configuration.chatPagesIncludeMessages
        ).register(on: router)
        InsightRoutes(database: catalog, auth: auth, cache: cache, modelLatency: configuration.modelLatency).register(on: router)
        FavoriteRoutes(database: catalog, auth: auth).register(on: router)
        AvatarRoutes(auth: auth).register(on: router)
        ContactsRoutes(database: catalog, auth: auth, contactCount: configuration.contactCount, assignsIds: configuration.assignsIds)
            .register(on: router)
        let server = try await LocalServer.start(
            responder: router.buildResponder(), port: configuration.port, protocol: configuration.serverProtocol,
            logger: configuration.logger)
        return ReferenceBackend(server: server, catalog: catalog)
    }

    /// Stops listening and waits until it has.
    public func stop() async {
        await server.stop()
    }
}

/// One line per request: method, path (no query: cursors and e-mails stay out), status, time, and
/// whether it was a 304.
struct RequestLog: RouterMiddleware {
    typealias Context = BackendContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            logger.info(
                "\(request.method) \(EndpointTemplate.of(path: request.uri.path)) failed after \(ContinuousClock.now - started): \(type(of: error))"
            )
            throw error
        }
        let elapsed = ContinuousClock.now - started
        logger.info(
            "\(request.method) \(EndpointTemplate.of(path: request.uri.path)) \(response.status.code) \(elapsed)\(response.status == .notModified ? " (304 revalidated)" : "")"
        )
        return response
    }
}
