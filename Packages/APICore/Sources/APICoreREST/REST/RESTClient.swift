import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// Sends REST requests through a private HTTP cache (RFC 9111), with the five cache policies,
/// in-flight de-duplication, retries with backoff, typed errors and auth events.
///
/// ```swift
/// let client = RESTClient(configuration: .init(baseURL: url, environment: environment, tokenProvider: session))
/// unified.register(client.cacheParticipant)
/// let catalog = try await client.send(APIRequest<CatalogResponse>(path: "/api/funnels/catalog")).value
/// ```
///
/// GET responses are stored under their full URL, query included, scoped to the signed-in user, when
/// the request declares ``Cacheable`` or the response's headers allow it; stale entries are
/// revalidated with `If-None-Match` / `If-Modified-Since`. A successful POST, PUT, PATCH or DELETE
/// removes the entries for its URL and its same-origin `Location` / `Content-Location`.
public final class RESTClient: Sendable {
    /// How a client is set up.
    public struct Configuration: Sendable {
        /// The server's base URL; request paths are relative to it.
        public var baseURL: URL
        /// What sends requests.
        public var transport: any HTTPTransport
        /// The app's clock, timeouts, metrics, logger and caches directory.
        public var environment: CacheEnvironment
        /// Supplies the signed-in user's token, if any.
        public var tokenProvider: (any TokenProvider)?
        /// How failed idempotent requests are retried.
        public var retry: RetryPolicy
        /// Waits between retries.
        public var sleeper: any Sleeper
        /// The timeout of requests that do not set their own.
        public var requestTimeout: Duration
        /// The cache's participant name and disk folder.
        public var cacheName: String
        /// The memory store's limits.
        public var memoryLimits: (count: Int, bytes: Int)
        /// The disk store's byte limit (uplifted entries).
        public var diskByteLimit: Int
        /// Where 401 and 403 responses are published; share one with the `GraphQLClient` so the
        /// session subscribes once.
        public var authEvents: AuthEvents
        /// Where every request, retry and error is reported (metrics, the error-rate alert, the app's sinks);
        /// share one between the clients.
        public var telemetry: APITelemetry

        /// Creates a configuration.
        public init(
            baseURL: URL, transport: any HTTPTransport = URLSessionTransport(),
            environment: CacheEnvironment = CacheEnvironment(), tokenProvider: (any TokenProvider)? = nil,
            retry: RetryPolicy = RetryPolicy(), sleeper: any Sleeper = TaskSleeper(),
            requestTimeout: Duration = .seconds(30), cacheName: String = "rest",
            memoryLimits: (count: Int, bytes: Int) = (1_000, 20 * 1024 * 1024),
            diskByteLimit: Int = 50 * 1024 * 1024, authEvents: AuthEvents = AuthEvents(), telemetry: APITelemetry? = nil
        ) {
            self.baseURL = baseURL
            self.transport = transport
            self.environment = environment
            self.tokenProvider = tokenProvider
            self.retry = retry
            self.sleeper = sleeper
            self.requestTimeout = requestTimeout
            self.cacheName = cacheName
            self.memoryLimits = memoryLimits
            self.diskByteLimit = diskByteLimit
            self.authEvents = authEvents
            self.telemetry = telemetry ?? APITelemetry(clock: environment.clock)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// 401 and 403 responses, for the session to subscribe to.
    public var authEvents: AuthEvents { configuration.authEvents }
    let cache: HTTPCache
    let inFlight = InFlightRequests<Exchange>()
    let sender: RetryingSender
    var environment: CacheEnvironment { configuration.environment }

    /// Creates a client. Register ``cacheParticipant`` with the app's `UnifiedCacheManager`.
    public init(configuration: Configuration) {
        self.configuration = configuration
        sender = RetryingSender(
            transport: configuration.transport, retry: configuration.retry,
            sleeper: configuration.sleeper, logger: configuration.environment.logger,
            authEvents: configuration.authEvents, telemetry: configuration.telemetry, clock: configuration.environment.clock)
        cache = HTTPCache(
            name: configuration.cacheName, environment: configuration.environment,
            memoryLimits: .init(
                countLimit: configuration.memoryLimits.count,
                costLimit: configuration.memoryLimits.bytes),
            diskByteLimit: configuration.diskByteLimit)
    }

    /// The HTTP cache, to register with the `UnifiedCacheManager` (cleared at logout like the rest).
    public var cacheParticipant: any CacheClearingParticipant { cache }

    /// Opens the HTTP cache's file now, if it exists and is not open yet, so that the first lookup finds it open: an
    /// app's launch calls it, off its main thread, beside its other work. Creates nothing and sends nothing.
    public func prepareCache() { cache.prepare() }

    /// What one network step produced (a 304 already merged with the stored response), shared by
    /// every caller of a de-duplicated request.
    struct Exchange: Sendable {
        var status: Int
        var headerFields: HTTPFields
        var body: Data
        var source: ResponseSource
        /// The value decoded by the caller that started the exchange, shared with callers of the same type.
        var decoded: (any Sendable)?
    }

    struct Prepared: Sendable {
        var urlString: String
        var key: String
        var requester: String?
        var scope: CacheScope
        var fields: HTTPFields
        /// The user whose session token the request carries (`nil` for a request to another origin, or with
        /// nobody signed in): whose session a 401 to it speaks of.
        var sentTokenOf: String?
        /// The HTTP cache's generation, read before the credentials: the response is stored only if no clearing came
        /// since (`HTTPCache.store`'s barrier).
        var generation: Int

        /// The URL, for the transport.
        func url() throws(APIError) -> URL {
            guard let url = URL(string: urlString), url.scheme != nil, url.host != nil else {
                throw .invalidRequest(reason: "'\(urlString)' is not a valid URL")
            }
            return url
        }
    }

    // MARK: Sending

    /// Sends a request under a cache policy and decodes the response.
    ///
    /// - Parameters:
    ///   - request: what to send and how to decode it.
    ///   - policy: how the cache is used; only GET requests are ever read from or written to it.
    /// - Returns: the value, where it came from, and the (stored) response's status and fields.
    /// - Throws: `APIError`; a 401 or 403 is also published on ``authEvents``.
    public func send<R>(_ request: APIRequest<R>, policy: CachePolicy = .default) async throws(APIError)
        -> APIResponse<R>
    {
        do {
            return try await sendThroughCache(request, policy: policy)
        } catch {
            configuration.telemetry.recordError(error, endpoint: EndpointTemplate.of(path: URLComponents(string: request.path)?.path ?? ""))
            throw error
        }
    }

    private func sendThroughCache<R>(_ request: APIRequest<R>, policy: CachePolicy) async throws(APIError) -> APIResponse<R> {
        let started = ContinuousClock.now
        var prepared = try await prepare(request)
        guard request.method == .get else { return try await sendUncached(request, prepared) }
        // The caller's own Cache-Control (RFC 9111 §5.2.1) narrows the policy.
        var directives = CacheControl(request.headerFields)
        // HTTP/1.0's `Pragma: no-cache` counts only where there is no Cache-Control (RFC 9111 §5.4).
        if request.headerFields[.cacheControl] == nil, let pragma = Self.pragma,
            request.headerFields[values: pragma].contains(where: { $0.lowercased().contains("no-cache") })
        {
            directives.noCache = true
        }
        var policy = policy
        if directives.noStore { policy = .fetchIgnoringCacheCompletely }
        if directives.onlyIfCached, policy == .returnCacheDataElseFetch { policy = .returnCacheDataDontFetch }
        let metrics = cache.metrics(feature: request.feature)
        var stale: StoredResponse?
        if policy == .returnCacheDataElseFetch || policy == .returnCacheDataAndFetch || policy == .returnCacheDataDontFetch,
            let (stored, metadata) = cache.lookup(prepared.key, requester: prepared.requester, requestFields: prepared.fields)
        {
            let now = environment.clock.now()
            let use = Self.reuse(stored, metadata, at: now, request: directives)
            if use != .revalidate {
                do throws(APIError) {
                    let response = try cachedResponse(
                        stored, for: request, at: now, state: use == .fresh ? .fresh : .stale,
                        expiresAt: use == .fresh ? metadata.expiresAt : nil)
                    metrics.recordHit()
                    metrics.recordRequestSaved(bytesSaved: stored.body.count)
                    environment.metrics.latency(feature: request.feature, source: .cache).record(ContinuousClock.now - started)
                    if policy == .returnCacheDataAndFetch || use == .staleWhileRevalidating {
                        refreshInBackground(request, prepared, conditional: stored)
                    }
                    return response
                } catch .decoding(let path, let reason) {
                    environment.logger.warning(
                        "Dropped a cached response that no longer decodes",
                        metadata: ["key": "\(RedactedKey(prepared.key))", "error": "\(path): \(reason)"])
                    cache.invalidate(prepared.key)
                    // Its own invalidation does not keep the response fetched next out, a clear since does.
                    prepared.generation = cache.generation(afterOwnInvalidationsSince: prepared.generation)
                } catch {
                    // A stored non-2xx response: the caller sees its typed error, as from the network.
                    metrics.recordHit()
                    throw error
                }
            } else {
                metrics.recordExpiration()
                stale = stored
            }
        } else if policy != .fetchIgnoringCacheData && policy != .fetchIgnoringCacheCompletely {
            metrics.recordMiss()
        }
        if policy == .returnCacheDataDontFetch { throw .notCached() }
        let conditional =
            policy == .fetchIgnoringCacheCompletely || policy == .fetchIgnoringCacheData
            ? nil : stale.flatMap { $0.hasValidators ? $0 : nil }
        do {
            let exchange = try await fetch(
                request, prepared, conditional: conditional,
                store: policy != .fetchIgnoringCacheCompletely)
            environment.metrics.latency(feature: request.feature, source: .network).record(ContinuousClock.now - started)
            // stale-if-error (RFC 5861 §4): a 5xx may be answered with the stale response instead.
            if [500, 502, 503, 504].contains(exchange.status), let stale, policy == .returnCacheDataElseFetch,
                !directives.noCache, directives.maxAge == nil,
                stale.allowsStale(byErrorAt: environment.clock.now()),
                let response = try? cachedResponse(stale, for: request, at: environment.clock.now(), state: .offline)
            {
                return response
            }
            return try response(from: exchange, for: request)
        } catch .transport(let error) {
            // A request that asked for validation (no-cache, max-age) never gets a stale response.
            guard let stale, stale.allowsStaleOnError, !directives.noCache, directives.maxAge == nil,
                policy != .fetchIgnoringCacheData,
                policy != .fetchIgnoringCacheCompletely,
                let response = try? cachedResponse(stale, for: request, at: environment.clock.now(), state: .offline)
            else {
                throw .transport(error)
            }
            environment.logger.info(
                "Served a stale response: the server could not be reached",
                metadata: ["key": "\(RedactedKey(prepared.key))", "error": "\(error)"])
            return response
        }
    }
}
