import APICore
import Foundation
import HTTPTypes

/// One REST request and how to decode its response.
///
/// ```swift
/// let page = APIRequest<CatalogResponse>(
///     path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "50")],
///     cacheable: Cacheable(key: "catalog.page", timeout: .seconds(300)), feature: "catalog")
/// let response = try await rest.send(page)
/// ```
public struct APIRequest<Response: Sendable>: Sendable {
    /// The method; only GET responses are cached, and unsafe methods invalidate what they touch.
    public var method: HTTPRequest.Method
    /// The path, relative to the client's base URL (`/api/funnels/catalog`). An absolute URL
    /// (`https://…`) is sent only to the client's own origin, unless ``allowsOtherOrigin`` says otherwise.
    public var path: String
    /// The query items, in order; they are part of the cache key.
    public var query: [URLQueryItem]
    /// Extra header fields (the client adds `Authorization` and validators itself).
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: Data?
    /// The request's own caching declaration, if any.
    public var cacheable: Cacheable?
    /// The feature it belongs to: the settings file's key for timeout overrides, and a metrics dimension.
    public var feature: String
    /// How long to wait for a response; `nil` for the client's default.
    public var timeout: Duration?
    /// Makes a POST safe to retry: sent as `Idempotency-Key`.
    public var idempotencyKey: String?
    /// The user this request is for, when it belongs to work that may outlive a session (a sync's page, a
    /// kit's background load): it is sent only while that user is signed in, with their token, and fails
    /// with `APIError.sessionChanged` otherwise, before anything leaves. `nil`: whoever is signed in.
    public var owner: String?
    /// Whether an absolute ``path`` may name another origin (scheme, host and port) than the client's
    /// base URL: such a request is sent **without** the session's credentials, and its 401 or 403 ends
    /// no session. `false` (the default): a request for another origin fails with
    /// `APIError.invalidRequest(reason:)` before anything is sent, so a URL that came from server data
    /// (a photo's address) can never carry the user's token elsewhere.
    public var allowsOtherOrigin = false
    /// Turns a 2xx body into the response value.
    public var decode: @Sendable (Data) throws(APIError) -> Response
    /// Whether a status outside 2xx is returned as a response rather than thrown (set by
    /// ``RESTClient/forward(method:url:headerFields:body:policy:)``).
    var returnsAnyStatus = false

    /// Creates a request with a custom decoder.
    public init(
        method: HTTPRequest.Method = .get, path: String, query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:], body: Data? = nil, cacheable: Cacheable? = nil,
        feature: String = "rest", timeout: Duration? = nil, idempotencyKey: String? = nil,
        decode: @escaping @Sendable (Data) throws(APIError) -> Response
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headerFields = headerFields
        self.body = body
        self.cacheable = cacheable
        self.feature = feature
        self.timeout = timeout
        self.idempotencyKey = idempotencyKey
        self.decode = decode
    }
}

extension APIRequest where Response: Decodable {
    /// Creates a request whose response is JSON decoded as `Response`. A body that does not decode
    /// gives `APIError/decoding(path:reason:)` with the coding path that failed.
    ///
    /// Inlinable so the decoding is specialized for `Response` in the module that builds the
    /// request (unspecialized, a cache hit spent ~15% more time decoding).
    @inlinable
    public init(
        method: HTTPRequest.Method = .get, path: String, query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:], body: Data? = nil, cacheable: Cacheable? = nil,
        feature: String = "rest", timeout: Duration? = nil, idempotencyKey: String? = nil,
        decoder: JSONDecoder = JSONDecoder()
    ) {
        self.init(
            method: method, path: path, query: query, headerFields: headerFields, body: body,
            cacheable: cacheable, feature: feature, timeout: timeout, idempotencyKey: idempotencyKey
        ) {
            (data: Data) throws(APIError) -> Response in
            do {
                return try decoder.decode(Response.self, from: data)
            } catch let error as DecodingError {
                throw APIError(error)
            } catch {
                throw .decoding(path: "", reason: "\(error)")
            }
        }
    }
}

extension APIRequest where Response == Data {
    /// Creates a request whose response is the raw body.
    public init(
        method: HTTPRequest.Method = .get, path: String, query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:], body: Data? = nil, cacheable: Cacheable? = nil,
        feature: String = "rest", timeout: Duration? = nil, idempotencyKey: String? = nil
    ) {
        self.init(
            method: method, path: path, query: query, headerFields: headerFields, body: body,
            cacheable: cacheable, feature: feature, timeout: timeout, idempotencyKey: idempotencyKey
        ) {
            (data: Data) throws(APIError) -> Data in data
        }
    }
}
