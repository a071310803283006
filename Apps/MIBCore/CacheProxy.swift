import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReferenceBackend

/// `mib proxy`: a local HTTP proxy that sends every request to an upstream server through APICore's
/// HTTP cache (``RESTClient/forward(method:url:headerFields:body:policy:)``, the code path the kits
/// use) and marks each response with `X-Cache: HIT | MISS | REVALIDATED | STALE`.
///
/// The method, path, query, header fields and body go upstream unchanged, hop-by-hop fields aside.
/// The origin's status, fields and body come back as a private cache serves them: reused responses
/// carry `Age`, redirects are returned rather than followed, and nothing is kept longer than the
/// response's own headers allow (RFC 9111; no timeout of the proxy's own). Each caller, told apart by
/// its credentials (``ProxyCaller``: `Authorization`, `Cookie`, an API key's field, what an authenticating
/// front adds, and the fields named in ``Configuration/callerFields``), gets its own cache, so two users
/// behind one proxy never share an entry; every other field (a request id, a trace header, a counter)
/// leaves the caller as it is. At most ``maximumCallers`` caches are kept; the least recently used one
/// is cleared to make room.
///
/// A stored `Set-Cookie` is never served: a cookie answers the one request it was issued to, and callers
/// without credentials share one cache, so a hit carries the stored response without it, a revalidated
/// response carries only the 304's own, and a request that joined another's fetch gets none.
///
/// When the proxy itself is why a response did not come from the cache, `X-Cache` says so after the
/// word: `MISS; new caller (authorization)` (the first request of a caller with its own cache, named by
/// its identifying fields, never their values) or `MISS; request no-cache` (the request's own directive).
///
/// Like the reference backend, it answers only requests for a loopback `Host` and refuses any `Origin`
/// that is not a loopback one, so a web page (DNS rebinding, a cross-site `fetch`) can neither read the
/// upstream through it nor plant entries in its caches.
///
/// ```swift
/// let proxy = try await CacheProxy.start(.init(upstream: api))
/// // curl -i http://127.0.0.1:<port>/api/funnels/catalog  → X-Cache: MISS, then HIT
/// ```
public final class CacheProxy: Sendable {
    /// How many callers' caches are kept at once; the least recently used one is cleared to make room.
    public static let maximumCallers = 32

    /// How the proxy starts.
    public struct Configuration: Sendable {
        /// The origin; request paths are appended to it.
        public var upstream: URL
        /// The local port; 0 picks a free one.
        public var port: Int
        /// The cache's clock, metrics, logger and folder.
        public var environment: CacheEnvironment
        /// What reaches the upstream: ``ToolTransport`` by default, which follows no redirect.
        public var transport: any HTTPTransport
        /// How long to wait for the upstream's response.
        public var requestTimeout: Duration
        /// Fields, besides the credential fields ``CacheProxy`` recognises, that identify a caller (an API
        /// whose credential field's name says nothing of it); any case.
        public var callerFields: Set<String>

        /// Creates a configuration.
        public init(
            upstream: URL, port: Int = 0, environment: CacheEnvironment = CacheEnvironment(),
            transport: any HTTPTransport = ToolTransport.make(),
            requestTimeout: Duration = .seconds(60), callerFields: Set<String> = []
        ) {
            self.upstream = upstream
            self.port = port
            self.environment = environment
            self.transport = transport
            self.requestTimeout = requestTimeout
            self.callerFields = callerFields
        }
    }

    /// Where the proxy listens: `http://127.0.0.1:<port>`.
    public var baseURL: URL { server.baseURL }
    private let server: LocalServer

    private init(server: LocalServer) {
        self.server = server
    }

    /// Starts listening on 127.0.0.1.
    /// - Throws: ``LocalServerError`` when the port cannot be bound.
    public static func start(_ configuration: Configuration) async throws -> CacheProxy {
        let responder = ProxyResponder(configuration: configuration)
        return CacheProxy(
            server: try await LocalServer.start(
                responder: responder, port: configuration.port,
                keepsResponseDate: true,
                logger: configuration.environment.logger))
    }

    /// Stops listening and waits until it has.
    public func stop() async {
        await server.stop()
    }
}

/// Answers every request by forwarding it through the cache of the caller, told apart by its credentials.
final class ProxyResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let configuration: CacheProxy.Configuration
    private let callers = Locked(Callers())

    /// The caches kept, by caller, most recently used last.
    private struct Callers {
        var clients: [String: RESTClient] = [:]
        var recency: [String] = []
        var created = 0
    }

    init(configuration: CacheProxy.Configuration) {
        self.configuration = configuration
        callerFields = Set(configuration.callerFields.map { $0.lowercased().replacingOccurrences(of: "_", with: "-") })
    }

    /// ``CacheProxy/Configuration/callerFields``, as ``ProxyCaller`` compares names.
    let callerFields: Set<String>

    /// The largest request body forwarded.
    static let maxBodySize = 64 * 1024 * 1024

    func respond(to request: Request, context: Context) async throws -> Response {
        if let refusal = LoopbackGuard<Context>.refusal(
            authority: request.head.authority, origin: request.headers[.origin],
            fetchSite: request.headers[HTTPField.Name("Sec-Fetch-Site")!])
        {
            return refusal
        }
        let buffer = try await request.body.collect(upTo: Self.maxBodySize)
        let body = buffer.readableBytes > 0 ? Data(buffer.readableBytesView) : nil
        let fields = Self.forwardedFields(request.headers)
        let base = configuration.upstream.absoluteString
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + request.uri.description
        let caller = ProxyCaller(request.headers, extraFields: callerFields)
        let (client, isNewCaller) = client(for: caller)
        do {
            // The request's own Cache-Control (no-cache, max-age, max-stale, min-fresh, only-if-cached,
            // no-store) is honoured by the client itself.
            let response = try await client.forward(method: request.method, url: url, headerFields: fields, body: body)
            var headers = Self.forwardedFields(response.headerFields)
            // URLSession hands over bodies already decoded, so their encoding no longer applies; the
            // tools' transport on Linux passes them through as sent, encoding and all.
            if configuration.transport is URLSessionTransport { headers[.contentEncoding] = nil }
            // A stored cookie answered another request, maybe another caller's (all anonymous callers
            // share one cache): never served. A 304's own reaches its caller (the client merges it in).
            if response.source == .cache { for name in Self.issuedToOneRequest { headers[name] = nil } }
            headers[ProxyHeader.xCache] = ProxyHeader.value(
                response.source, isStale: response.isStale,
                reason: response.source == .network
                    ? ProxyHeader.missReason(request: request.headers, caller: caller, isNewCaller: isNewCaller) : nil)
            // The endpoint's template, never the path itself (ids, user names).
            configuration.environment.logger.info(
                "\(request.method) \(EndpointTemplate.of(path: request.uri.path)) \(response.status) \(headers[ProxyHeader.xCache] ?? "")")
            return Response(
                status: .init(code: response.status), headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: response.value)))
        } catch {
            return Self.gatewayError(error)
        }
    }

    /// The cache of `caller`, and whether it was made for this request while another caller had one:
    /// keyed by a keyed hash of its ``ProxyCaller/key``, so no credential is kept as a key. Past
    /// ``CacheProxy/maximumCallers``, the least recently used cache is cleared.
    private func client(for caller: ProxyCaller) -> (RESTClient, isNew: Bool) {
        let key = configuration.environment.secret.hash(caller.key)
        let (client, evicted, isNew) = callers.withLock { callers -> (RESTClient, RESTClient?, Bool) in
            if let client = callers.clients[key] {
                callers.recency.removeAll { $0 == key }
                callers.recency.append(key)
                return (client, nil, false)
            }
            var evicted: RESTClient?
            if callers.clients.count >= CacheProxy.maximumCallers, let oldest = callers.recency.first {
                callers.recency.removeFirst()
                evicted = callers.clients.removeValue(forKey: oldest)
            }
            callers.created += 1
            // Each caller's cache has a folder, and so a hashing key, of its own: clearing one forgets
            // only its own.
            let shared = configuration.environment
            let environment = CacheEnvironment(
                clock: shared.clock, timeouts: shared.timeouts, metrics: shared.metrics, logger: shared.logger,
                cachesDirectory: shared.cachesDirectory.appendingPathComponent("proxy-\(callers.created)", isDirectory: true))
            let client = RESTClient(
                configuration: .init(
                    baseURL: configuration.upstream, transport: configuration.transport,
                    environment: environment, retry: .none, requestTimeout: configuration.requestTimeout,
                    cacheName: "proxy-\(callers.created)"))
            callers.clients[key] = client
            callers.recency.append(key)
            return (client, evicted, callers.created > 1)
        }
        if let evicted {
            let logger = configuration.environment.logger
            Task {
                do {
                    try await evicted.cacheParticipant.clearAll()
                } catch {
                    logger.error("A proxy cache could not be cleared", metadata: ["error": "\(error)"])
                }
            }
        }
        return (client, isNew)
    }

    /// `fields` without the hop-by-hop ones (RFC 9110 §7.6.1), those `Connection` names, `Host` and
    /// `Content-Length` (each hop sets its own).
    static func forwardedFields(_ fields: HTTPFields) -> HTTPFields {
        let named = fields[values: .connection].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let dropped = hopByHop.union(named)
        return HTTPFields(fields.filter { !dropped.contains($0.name.canonicalName) })
    }

    /// Response fields issued to the one request they answered: never served from the cache.
    static let issuedToOneRequest: [HTTPField.Name] =
        [.setCookie] + ["Set-Cookie2", "Authentication-Info"].compactMap { HTTPField.Name($0) }

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// 504 when the answer could only come from the cache and is not there, or the upstream timed
    /// out; 502 when the upstream could not be reached; 400 for a request that cannot be sent.
    static func gatewayError(_ error: any Error) -> Response {
        let status: HTTPResponse.Status
        switch error as? APIError {
        case .notCached?, .transport(.timedOut)?: status = .gatewayTimeout
        case .invalidRequest(_)?: status = .badRequest
        default: status = .badGateway
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        // The proxy's own answer carries its own Date (forwarded responses keep the origin's).
        headers[.date] = HTTPDateFormat.string(Date())
        return Response(
            status: status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: "mib proxy: \(error)\n")))
    }
}

/// The `X-Cache` field the proxy adds.
public enum ProxyHeader {
    /// `X-Cache`.
    public static let xCache = HTTPField.Name("X-Cache") ?? .via  // always valid; `?? .via` avoids a force unwrap

    /// `HIT` (fresh, no request), `MISS` (from the origin), `REVALIDATED` (stored, confirmed by a
    /// 304) or `STALE` (stored and stale, served because the origin could not be reached), followed by
    /// `; ` and `reason` when there is one.
    public static func value(_ source: ResponseSource, isStale: Bool, reason: String? = nil) -> String {
        let word: String
        if isStale {
            word = "STALE"
        } else {
            switch source {
            case .cache: word = "HIT"
            case .network: word = "MISS"
            case .revalidated: word = "REVALIDATED"
            }
        }
        return reason.map { word + "; " + $0 } ?? word
    }

    /// Why a request went to the origin when the proxy is the cause: the request's own directive
    /// (`request no-cache`, `request no-store`, `request max-age=0`, `request Pragma: no-cache`), or a
    /// caller whose cache was made for this request while others have theirs (`new caller (cookie)`:
    /// the names of its identifying fields, never their values). `nil` otherwise.
    static func missReason(request fields: HTTPFields, caller: ProxyCaller, isNewCaller: Bool) -> String? {
        let directives = fields[values: .cacheControl].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for directive in ["no-store", "no-cache", "max-age=0"] where directives.contains(directive) {
            return "request " + directive
        }
        if directives.isEmpty, fields[values: pragma].contains(where: { $0.lowercased().contains("no-cache") }) {
            return "request Pragma: no-cache"
        }
        guard isNewCaller else { return nil }
        let names = caller.isAnonymous ? "anonymous" : caller.fieldNames.joined(separator: ", ")
        return "new caller (" + names + ")"
    }

    /// `Pragma` (always valid; `?? .cacheControl` avoids a force unwrap).
    static let pragma = HTTPField.Name("Pragma") ?? .cacheControl
}
