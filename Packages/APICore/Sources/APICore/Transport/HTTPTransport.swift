import Foundation
import HTTPTypes

/// Sends one HTTP request and returns the response as received: no caching, no retries, no
/// decoding. ``URLSessionTransport`` is the default; `APICoreTesting` has a recording fake.
///
/// Cancelling the calling task cancels the request.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the status, headers and body, whatever the status.
    /// - Throws: ``TransportError`` when no response arrived.
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse
}

/// A request as it goes on the wire.
public struct TransportRequest: Sendable, Hashable {
    /// The method.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: Data?
    /// How long to wait for the response before ``TransportError/timedOut``.
    public var timeout: Duration

    /// Creates a request.
    public init(
        method: HTTPRequest.Method, url: URL, headerFields: HTTPFields = [:], body: Data? = nil,
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
    }
}

/// A response as received: a 304 arrives as a 304 with an empty body.
public struct TransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }
}

/// Why no response arrived.
public enum TransportError: Error, Sendable, Hashable {
    /// The network is unreachable or the server refused the connection.
    case offline(reason: String)
    /// No response within the request's timeout.
    case timedOut
    /// The connection dropped before the response was complete.
    case connectionLost(reason: String)
    /// The caller cancelled.
    case cancelled
    /// The server's certificate chain matched none of the host's pins (``PinningPolicy``): the connection
    /// was closed during the handshake, before any request byte was sent. Not a network failure and not
    /// an expired session: a man in the middle, or a certificate rotated without its pin.
    case pinMismatch(host: String)
    /// The request cannot be written as asked (a control character or a line break in its target or a
    /// header field): nothing was sent. A bug of the caller's, never retried.
    case invalidRequest(reason: String)
    /// The response's body passed the transport's limit (64 MiB by default): a hostile or broken server cannot
    /// exhaust the app's memory. Nothing of it is kept; never retried. Past the limit, a transport stops
    /// reading (URLSession's has read the body by then, and drops it).
    case responseTooLarge(limit: Int)
    /// Anything else the transport reported.
    case other(reason: String)
}
