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
/// **every** request field but the ones known to identify nobody (content negotiation, validators,
/// `Cache-Control`, connection management: `ProxyResponder.nonIdentifyingFields`), gets its own cache,
/// so two users behind one proxy never share an entry, whatever field identifies them (`Authorization`,
/// `Cookie`, `PRIVATE-TOKEN`, `X-Goog-Api-Key`, …). At most ``maximumCallers`` caches are kept; the least
/// recently used one is cleared to make room.
///
/// Like the reference backend, it answers only requests for a loopback `Host` and refuses any `Origin`
/// that is not a loopback one, so a web page (DNS rebinding, a cross-site `fetch`) can neither read the
/// upstream through it nor plant entries in its caches.
///
/// ```swift
/// let proxy = try await CacheProxy.start(.init(upstream: URL(string: "https://api.example.com")!))
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

        /// Creates a configuration.
        public init(
            upstream: URL, port: Int = 0, environment: CacheEnvironment = CacheEnvironment(),
            transport: any HTTPTransport = ToolTransport.make(),
            requestTimeout: Duration = .seconds(60)
        ) {
            self.upstream = upstream
            self.port = port
            self.environment = environment
            self.transport = transport
            self.requestTimeout = requestTimeout
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

    /// The request fields known to identify nobody: content negotiation, validators and ranges, the
    /// request's own caching directives, connection management, the body's description, tracing and the
    /// browser's fetch metadata. **Every other field** tells callers apart (security review two,
    /// finding 3): a list of credential fields would always miss one (`PRIVATE-TOKEN`, `X-Goog-Api-Key`).
    static let nonIdentifyingFields: Set<String> = [
        "accept", "accept-charset", "accept-encoding", "accept-language", "accept-datetime",
        "cache-control", "pragma", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
        "if-range", "range", "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
        "upgrade", "host", "via", "max-forwards", "expect", "content-length", "content-type",
        "content-encoding", "content-language", "date", "user-agent", "referer", "origin", "dnt", "priority",
        "upgrade-insecure-requests", "traceparent", "tracestate", "x-request-id", "x-correlation-id",
        "idempotency-key", "prefer", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port",
    ]

    /// Prefixes of fields that identify nobody: the browser's fetch metadata and client hints. Not the
    /// forwarding fields as a family: `X-Forwarded-User`, `X-Forwarded-Email` or `X-Forwarded-Client-Cert`
    /// (set by an authenticating proxy in front) identify the caller, so only the four that describe the
    /// route are listed above; `Forwarded` may carry a `for=` identity too.
    static let nonIdentifyingPrefixes = ["sec-fetch-", "sec-ch-"]

    /// What tells the caller sending `fields` apart: every field not known to identify nobody, names
    /// lower-cased, values joined and their list separators normalized (`a,b` is `a, b`), sorted.
    static func identity(_ fields: HTTPFields) -> String {
        var values: [String: [String]] = [:]
        for field in fields {
            let name = field.name.canonicalName
            guard !nonIdentifyingFields.contains(name), !nonIdentifyingPrefixes.contains(where: name.hasPrefix) else { continue }
            values[name, default: []].append(field.value)
        }
        return values.keys.sorted().map { name in
            let items = (values[name] ?? []).joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
            return name + "=" + items.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        }.joined(separator: "\n")
    }

    init(configuration: CacheProxy.Configuration) {
        self.configuration = configuration
    }

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
        let client = client(for: request.headers)
        do {
            // The request's own Cache-Control (no-cache, max-age, max-stale, min-fresh, only-if-cached,
            // no-store) is honoured by the client itself.
            let response = try await client.forward(method: request.method, url: url, headerFields: fields, body: body)
            var headers = Self.forwardedFields(response.headerFields)
            // URLSession hands over bodies already decoded, so their encoding no longer applies; the
            // tools' transport on Linux passes them through as sent, encoding and all.
            if configuration.transport is URLSessionTransport { headers[.contentEncoding] = nil }
            headers[ProxyHeader.xCache] = ProxyHeader.value(response.source, isStale: response.isStale)
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

    /// The cache of the caller sending `fields`: keyed by a keyed hash of its ``identity(_:)``, so no
    /// credential is kept as a key. Past ``CacheProxy/maximumCallers``, the least recently used cache is cleared.
    private func client(for fields: HTTPFields) -> RESTClient {
        let key = configuration.environment.secret.hash(Self.identity(fields))
        let (client, evicted) = callers.withLock { callers -> (RESTClient, RESTClient?) in
            if let client = callers.clients[key] {
                callers.recency.removeAll { $0 == key }
                callers.recency.append(key)
                return (client, nil)
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
            return (client, evicted)
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
        return client
    }

    /// `fields` without the hop-by-hop ones (RFC 9110 §7.6.1), those `Connection` names, `Host` and
    /// `Content-Length` (each hop sets its own).
    static func forwardedFields(_ fields: HTTPFields) -> HTTPFields {
        let named = fields[values: .connection].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let dropped = hopByHop.union(named)
        return HTTPFields(fields.filter { !dropped.contains($0.name.canonicalName) })
    }

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
    /// 304) or `STALE` (stored and stale, served because the origin could not be reached).
    public static func value(_ source: ResponseSource, isStale: Bool) -> String {
        if isStale { return "STALE" }
        switch source {
        case .cache: return "HIT"
        case .network: return "MISS"
        case .revalidated: return "REVALIDATED"
        }
    }
}
