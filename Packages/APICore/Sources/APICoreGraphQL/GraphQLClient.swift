import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// Sends GraphQL queries and mutations over an `HTTPTransport` through a normalized cache: the
/// five `CachePolicy` cases, per-field freshness under the timeout precedence, in-flight
/// de-duplication of identical queries, watchers, mutations with refetch rules and optimistic
/// updates, and exact clearing by account.
///
/// ```swift
/// let graphQL = GraphQLClient(configuration: .init(endpoint: url.appending(path: "graphql"),
///                                                  environment: environment, container: container))
/// unified.register(graphQL)
/// let balance = try await graphQL.fetch(AccountBalanceQuery(accountId: "123")).data
/// ```
///
/// Objects are stored once, under the key a kit's `CacheKeyProvider` gives (`Account:123`), so a
/// mutation that changes `Account:123.balance` is seen by every query and watcher that reads it.
public final class GraphQLClient: Sendable {
    /// How a client is set up.
    public struct Configuration: Sendable {
        /// The GraphQL endpoint (`https://api.example.com/graphql`).
        public var endpoint: URL
        /// What sends requests.
        public var transport: any HTTPTransport
        /// The app's clock, timeouts, metrics and logger.
        public var environment: CacheEnvironment
        /// Supplies the signed-in user's token, if any.
        public var tokenProvider: (any TokenProvider)?
        /// Where the kits registered their key providers, default timeouts and refetch rules.
        public var container: DependencyContainer?
        /// Where records live: in memory unless a kit wants offline reads (``SQLiteRecordStore``).
        public var store: any NormalizedRecordStore
        /// How failed queries are retried (mutations are never retried).
        public var retry: RetryPolicy
        /// Waits between retries.
        public var sleeper: any Sleeper
        /// The timeout of each request.
        public var requestTimeout: Duration
        /// The participant's name in clearing reports and statistics.
        public var cacheName: String
        /// Where 401 and 403 responses are published (share it with the `RESTClient`).
        public var authEvents: AuthEvents
        /// Where every request, retry and error is reported (metrics, the error-rate alert, the app's sinks);
        /// share one between the clients.
        public var telemetry: APITelemetry

        /// Creates a configuration.
        public init(
            endpoint: URL, transport: any HTTPTransport = URLSessionTransport(),
            environment: CacheEnvironment = CacheEnvironment(), tokenProvider: (any TokenProvider)? = nil,
            container: DependencyContainer? = nil, store: any NormalizedRecordStore = InMemoryRecordStore(),
            retry: RetryPolicy = RetryPolicy(), sleeper: any Sleeper = TaskSleeper(),
            requestTimeout: Duration = .seconds(30), cacheName: String = "graphql",
            authEvents: AuthEvents = AuthEvents(), telemetry: APITelemetry? = nil
        ) {
            self.endpoint = endpoint
            self.transport = transport
            self.environment = environment
            self.tokenProvider = tokenProvider
            self.container = container
            self.store = store
            self.retry = retry
            self.sleeper = sleeper
            self.requestTimeout = requestTimeout
            self.cacheName = cacheName
            self.authEvents = authEvents
            self.telemetry = telemetry ?? APITelemetry(clock: environment.clock)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// 401 and 403 responses, for the session to subscribe to.
    public var authEvents: AuthEvents { configuration.authEvents }
    /// The normalized cache, for local reads and writes.
    public let cache: NormalizedCache
    let sender: RetryingSender
    let inFlight = InFlightRequests<[String: JSONValue]>()
    /// Writes, clears and the bookkeeping that must move with them, under one lock.
    let state = Locked(State())
    var environment: CacheEnvironment { configuration.environment }

    struct State {
        /// Bumped by every clear, so a response that started before it is not written after it.
        var generation = 0
        /// Queries fetched or watched since the last full clear, by operation name then variables,
        /// for refetch rules: the 20 most recently used per name.
        var active: [String: [[String: JSONValue]: RememberedQuery]] = [:]
        /// Orders ``RememberedQuery/lastUsed``.
        var useCounter: UInt64 = 0
        var watchers: [Int: Watcher] = [:]
        var nextWatcher = 0
        /// The user whose data the store holds, once known (`.some(nil)`: signed out).
        var owner: String??
        /// Operations whose responses were checked for `__typename` (each is checked, and warned
        /// about, once).
        var typenameChecked: Set<String> = []
    }

    /// Creates a client. Register it with the app's `UnifiedCacheManager`; it clears like the rest.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let container = configuration.container
        let store = ObservedRecordStore.wrapping(configuration.store, changes: configuration.environment.storeChanges)
        cache = NormalizedCache(store: store, clock: configuration.environment.clock) { typename in
            container?.cacheKeyProvider(forTypename: typename)
        }
        sender = RetryingSender(
            transport: configuration.transport, retry: configuration.retry,
            sleeper: configuration.sleeper, logger: configuration.environment.logger,
            authEvents: configuration.authEvents, telemetry: configuration.telemetry, clock: configuration.environment.clock)
    }

    // MARK: Queries

    /// Fetches a query under a cache policy.
    ///
    /// - Parameters:
    ///   - query: the query and its variables.
    ///   - policy: `CachePolicy/returnCacheDataElseFetch` (the default) answers from the store when
    ///     every field the query reads is present and younger than its timeout; an expired or missing
    ///     field is a miss. `CachePolicy/returnCacheDataAndFetch` returns the cached data (marked
    ///     stale when expired) and refreshes the store in the background: ``watch(_:policy:timeout:)``
    ///     delivers both. `CachePolicy/returnCacheDataDontFetch` never sends a request.
    ///     `CachePolicy/fetchIgnoringCacheCompletely` writes nothing.
    ///   - timeout: this call's timeout, before the query type's, the kit's and the global default.
    /// - Throws: `APIError`: `APIError/graphQL(_:)` for an `errors` array, with the partial data;
    ///   `APIError/notCached` for a cache-only miss; `APIError/invalidOperation(_:)`.
    public func fetch<Q: GraphQLQuery>(_ query: Q, policy: CachePolicy = .default, timeout: CacheTimeout? = nil)
        async throws(APIError) -> GraphQLResult
    {
        do {
            return try await fetchThroughCache(query, policy: policy, timeout: timeout)
        } catch {
            recordError(error, operation: (try? query.operation())?.name)
            throw error
        }
    }

    private func fetchThroughCache<Q: GraphQLQuery>(_ query: Q, policy: CachePolicy, timeout: CacheTimeout?) async throws(APIError)
        -> GraphQLResult
    {
        let started = ContinuousClock.now
        let operation = try query.operation()
        await adoptCurrentUser()
        remember(query, operation)
        let metrics = environment.metrics.metrics(store: "normalized", feature: Q.feature)
        var stale: GraphQLResult?
        var missing: String?
        if policy == .returnCacheDataElseFetch || policy == .returnCacheDataAndFetch || policy == .returnCacheDataDontFetch {
            switch readFromCache(query, operation, timeout: timeout) {
            case .fresh(let result):
                metrics.recordHit()
                environment.metrics.latency(feature: Q.feature, source: .cache).record(ContinuousClock.now - started)
                if policy == .returnCacheDataAndFetch { refreshInBackground(query, operation) }
                return result
            case .stale(let result):
                metrics.recordExpiration()
                if policy == .returnCacheDataAndFetch {
                    refreshInBackground(query, operation)
                    return result
                }
                stale = result
            case .miss(let path):
                missing = path
                metrics.recordMiss()
            }
        }
        if policy == .returnCacheDataDontFetch { throw .notCached(MissingData(path: missing)) }
        do {
            let data = try await network(query, operation, store: policy != .fetchIgnoringCacheCompletely)
            environment.metrics.latency(feature: Q.feature, source: .network).record(ContinuousClock.now - started)
            return GraphQLResult(data: data, source: .network, freshness: .fetched(at: environment.clock.now()))
        } catch .transport(let error) {
            guard let stale, policy == .returnCacheDataElseFetch else { throw .transport(error) }
            environment.logger.info(
                "Served stale GraphQL data: the server could not be reached",
                metadata: ["operation": "\(operation.name ?? "query")", "error": "\(error)"])
            var offline = stale
            offline.freshness = stale.freshness.offline
            return offline
        }
    }

    enum CacheRead {
        case fresh(GraphQLResult)
        case stale(GraphQLResult)
        /// `path`: the first field the store lacked, when known.
        case miss(path: String?)
    }

    /// Reads the query from the store and judges its freshness: fresh while its oldest field is
    /// younger than the timeout (call site, then type, then kit, then global; the settings file's
    /// per-feature override first).
    func readFromCache<Q: GraphQLQuery>(_ query: Q, _ operation: GraphQLOperation, timeout: CacheTimeout?) -> CacheRead {
        let read: NormalizedCache.ReadResult
        do {
            read = try cache.read(operation, variables: query.variables, trackingDependencies: false)
        } catch {
            switch error {
            case .corrupt(let path, let reason):
                environment.logger.warning(
                    "Dropped a corrupt GraphQL record; refetching",
                    metadata: ["path": "\(RedactedKey(path))", "reason": "\(reason)"])
                return .miss(path: nil)
            case .missing(let path):
                return .miss(path: path)
            }
        }
        let result = GraphQLResult(
            data: read.data, source: .cache, freshness: freshness(of: Q.self, oldestWrite: read.oldestWrite, timeout: timeout))
        return result.isStale ? .stale(result) : .fresh(result)
    }

    /// How fresh cached data of `Q` is: fresh while its oldest field is younger than the timeout (call
    /// site, then type, then kit, then global; the settings file's per-feature override first), else stale.
    func freshness<Q: GraphQLQuery>(of query: Q.Type, oldestWrite: Date?, timeout: CacheTimeout?) -> Freshness {
        let declared = CacheTimeout.declared(
            callSite: timeout, type: Q.cacheTimeout,
            kit: configuration.container?.defaultTimeout(forFeature: Q.feature))
        let expiry = oldestWrite.flatMap { environment.timeouts.expiry(for: declared, feature: Q.feature, storedAt: $0) }
        let now = environment.clock.now()
        let storedAt = oldestWrite ?? now
        if let expiry, now >= expiry { return Freshness(.stale, storedAt: storedAt, now: now) }
        return Freshness(.fresh, storedAt: storedAt, now: now, expiresAt: expiry)
    }

    private func refreshInBackground<Q: GraphQLQuery>(_ query: Q, _ operation: GraphQLOperation) {
        Task {
            do {
                _ = try await self.network(query, operation, store: true)
            } catch {
                self.environment.logger.debug(
                    "Background GraphQL refresh failed",
                    metadata: ["operation": "\(operation.name ?? "query")", "error": "\(error)"])
            }
        }
    }

    /// A query kept for refetch rules, with when it was last used.
    struct RememberedQuery {
        var query: any GraphQLQuery
        var lastUsed: UInt64
    }

    /// How many variable sets are remembered per operation name for refetch rules.
    static let rememberedPerName = 20

    /// Keeps the query for refetch rules that name its operation: the 20 most recently used variable
    /// sets per name (the least recently used is forgotten first).
    func remember<Q: GraphQLQuery>(_ query: Q, _ operation: GraphQLOperation) {
        guard let name = operation.name else { return }
        let variables = query.variables
        // Mutated in place (no copy of the inner dictionary, no key string built): this runs on every hit.
        state.withLock { state in
            state.useCounter += 1
            let now = state.useCounter
            if state.active[name]?[variables] == nil, let known = state.active[name], known.count >= Self.rememberedPerName,
                let victim = known.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
            {
                state.active[name]?[victim] = nil
            }
            state.active[name, default: [:]][variables] = RememberedQuery(query: query, lastUsed: now)
        }
    }
}

extension GraphQLClient {
    /// Reports an error of an operation to telemetry, under `/graphql#OperationName`.
    func recordError(_ error: APIError, operation name: String?) {
        configuration.telemetry.recordError(error, endpoint: EndpointTemplate.graphQL(path: configuration.endpoint.path, operation: name))
    }
}
