import APICore
import APICoreGraphQL
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import ReferenceBackend
import SessionKit

/// Makes the transport a composition sends through: ``ToolTransport`` by default, `PinnedTransport` when `mib`
/// runs pinned (its `TLS` trait).
public typealias TransportFactory = @Sendable () throws -> any HTTPTransport

/// The app's ``Composition`` as the tools drive it (`mib demo`, `mib e2e`, `mib inspect`): a clock
/// the story advances, a transport that counts what reaches the network, no retries (so that every
/// count is exact), and helpers a real app does not need. Every member of the composition is
/// reachable through it (`app.session`, `app.catalog`, …).
@dynamicMemberLookup
public final class DemoComposition: Sendable {
    /// The wiring itself, as an app builds it.
    public let composition: Composition
    /// The clock every cache reads; the story advances it ("five minutes later").
    public let clock: DemoClock
    /// Counts what reaches the network, by path.
    public let transport: CountingTransport
    /// What made the transport under ``transport``; a relaunch in a scenario sends through a new one.
    public let makeTransport: TransportFactory

    /// Wires the app against `baseURL`, as ``Composition/init(baseURL:cachesDirectory:supportDirectory:keepsQueueAtLogout:clock:transport:retry:logger:graphQLStore:startsFirstSync:sessionRequestTimeout:)``
    /// does, with the demo's clock, a counting transport over the one `makeTransport` makes
    /// (``ToolTransport`` by default; a pinned one in `mib`'s TLS build), no retries, and the GraphQL
    /// records in `graphQLStore` (in memory by default), on `clock` (the real time by default). Unless
    /// `startsFirstSync`, the launch and a sign-in start no sync: the story starts each itself, so that every
    /// count is exact.
    /// - Throws: what `makeTransport` throws, or ``Composition``'s error.
    public init(
        baseURL: URL, cachesDirectory: URL, supportDirectory: URL? = nil, keepsQueueAtLogout: Bool = true,
        transport makeTransport: @escaping TransportFactory = ToolTransport.factory, logger: Logger,
        graphQLStore: any NormalizedRecordStore = InMemoryRecordStore(), clock: DemoClock = DemoClock(),
        startsFirstSync: Bool = false
    ) throws {
        let transport = CountingTransport(try makeTransport())
        composition = try Composition(
            baseURL: baseURL, cachesDirectory: cachesDirectory, supportDirectory: supportDirectory,
            keepsQueueAtLogout: keepsQueueAtLogout, clock: clock, transport: transport, retry: .none, logger: logger,
            // The tools and the tests run beside other work (CI runs the suite beside two busy processes): a sign-in
            // against a loaded local backend has passed the app's 10 s, so theirs waits a minute.
            graphQLStore: graphQLStore, startsFirstSync: startsFirstSync, sessionRequestTimeout: .seconds(60))
        self.clock = clock
        self.transport = transport
        self.makeTransport = makeTransport
    }

    /// Any member of the wiring (`session`, `catalog`, `unified`, …).
    public subscript<T>(dynamicMember keyPath: KeyPath<Composition, T>) -> T {
        composition[keyPath: keyPath]
    }

    /// Runs `body` against `server`, or against a reference backend started for the call (its data in
    /// `directory`, stopped afterwards) when `server` is `nil`: a throwaway backend holding only the
    /// documented demo accounts, so its password checks are ``PasswordWork/light``, and `contactCount`
    /// contacts in each address book (10,000, the offline storage specification's figure; tests pass fewer).
    public static func withBackend<T>(
        _ server: URL?, in directory: URL, logger: Logger, contactCount: Int = 10_000,
        _ body: (URL) async throws -> T
    ) async throws -> T {
        if let server { return try await body(server) }
        let backend = try await ReferenceBackend.start(
            .init(
                databaseURL: directory.appendingPathComponent("backend.sqlite"), passwordWork: .light, contactCount: contactCount,
                logger: logger))
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

    /// Signs in as one of the reference backend's users (Alice by default).
    /// - Returns: the user's id.
    @discardableResult
    public func signIn(email: String = "alice@example.com", password: String = "Password1") async throws -> String {
        try await composition.signIn(email: email, password: password)
    }

    /// Logs out, as ``Composition/logOut()``.
    public func logOut() async -> (report: ClearingReport, duration: Duration) {
        await composition.logOut()
    }

    /// Waits until the session reaches a state `matching` says is the one (such as an expiry), at
    /// most `limit`; `nil` when it never does.
    public func waitForSession(
        limit: Duration = .seconds(30),
        _ matching: @escaping @Sendable (SessionState) -> Bool
    ) async -> SessionState? {
        let session = composition.session
        return try? await withDeadline(limit, "the session state") { () async -> SessionState? in
            for await state in session.states() where matching(state) { return state }
            return nil
        }
    }

    /// Every page of the catalog (50 a page) through CatalogKit, cache first.
    public func loadCatalog() async throws -> CatalogListing {
        try await composition.catalog.allPages()
    }

    /// Account `id`'s balance in cents.
    public func balance(of id: String = "100", policy: CachePolicy = .default) async throws -> Int {
        try await composition.accounts.balance(accountId: id, policy: policy).value.amount
    }

    /// Sends an admin request to the backend, bypassing every cache.
    func admin(_ method: HTTPRequest.Method, _ path: String, json: String? = nil) async throws {
        var fields = HTTPFields()
        if json != nil { fields[.contentType] = "application/json" }
        let response = try await transport.send(
            TransportRequest(
                method: method, url: composition.baseURL.appendingPathComponent(path), headerFields: fields,
                body: json.map { Data($0.utf8) }, timeout: .seconds(10)))
        guard (200..<300).contains(response.status) else {
            throw DemoError.unexpected("\(method) \(path) answered \(response.status)")
        }
    }

    /// Entries left in every store.
    public func entryCount() async -> Int {
        await composition.unified.statistics().reduce(0) { $0 + $1.usage.count }
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
