import APICore
import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

/// A transport on AsyncHTTPClient (SwiftNIO), for Linux servers and tools: bodies arrive exactly as the
/// server sent them (a `Content-Encoding` is never decoded nor refused, whatever its name), chunked
/// `Transfer-Encoding` is decoded, connections are pooled and kept alive, and HTTP/2 is used where a
/// server offers it over TLS. On Linux, FoundationNetworking's `URLSession` (libcurl) refuses or rewrites
/// such bodies, which an HTTP intermediary (`mib proxy`) must pass through unchanged.
///
/// Like `PinnedTransport`, it never follows a redirect: a 3xx is returned as is. It keeps no cookies and no
/// cache of its own, so `RESTClient`'s HTTP cache alone decides what is stored and revalidated.
public final class HTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let bodyLimit: Int

    /// Creates a transport with its own connection pool.
    /// - Parameters:
    ///   - idleTimeout: how long an idle connection is kept for the next request.
    ///   - bodyLimit: the largest body read into memory (64 MiB by default); reading stops past it, and the
    ///     request fails with `TransportError.responseTooLarge(limit:)`.
    public init(idleTimeout: Duration = .seconds(60), bodyLimit: Int = 64 << 20) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool = .init(idleTimeout: .nanoseconds(idleTimeout.clampedNanoseconds))
        // A refused connection fails the request at once, as URLSession's does: retrying is the caller's
        // decision (RetryPolicy), and connectivity must learn of it now, not after the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.bodyLimit = bodyLimit
    }

    deinit {
        client.shutdown { _ in }
    }

    /// Sends the request, reading the whole body, within `TransportRequest.timeout`.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields where !Self.framingFields.contains(field.name) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let deadline = NIODeadline.now() + .nanoseconds(request.timeout.clampedNanoseconds)
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            let body = try await response.body.collect(upTo: bodyLimit)
            var fields = HTTPFields()
            for (name, value) in response.headers {
                guard let name = HTTPField.Name(name) else { continue }
                fields.append(HTTPField(name: name, value: value))
            }
            return TransportResponse(status: Int(response.status.code), headerFields: fields, body: Data(body.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw .responseTooLarge(limit: bodyLimit)
        } catch {
            throw Self.map(error)
        }
    }

    /// The fields the transport frames itself: a caller's copy would contradict the body it sends.
    static let framingFields: Set<HTTPField.Name> = [.contentLength, .transferEncoding, .connection]

    /// AsyncHTTPClient's and SwiftNIO's errors as `TransportError`s.
    static func map(_ error: any Error) -> TransportError {
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled, .requestStreamCancelled: return .cancelled
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return .timedOut
            case .remoteConnectionClosed, .uncleanShutdown, .bodyLengthMismatch: return .connectionLost(reason: "\(error)")
            case .invalidURL, .emptyHost, .emptyScheme: return .invalidRequest(reason: "\(error)")
            default:
                // The header checks carry the offending names or values, so they match by description.
                if "\(error)".hasPrefix("Invalid header field") { return .invalidRequest(reason: "\(error)") }
                return .other(reason: "\(error)")
            }
        }
        // A response cut short (the connection closed before its declared length) or that does not parse:
        // URLSession's `networkConnectionLost` and `cannotParseResponse`.
        if error is HTTPParserError { return .connectionLost(reason: "\(error)") }
        if let error = error as? IOError {
            // The system's own sentence ("Connection refused"), as URLSession's reasons read.
            let reason = String(cString: strerror(error.errnoCode))
            switch error.errnoCode {
            case ECONNRESET, EPIPE: return .connectionLost(reason: reason)
            default: return .offline(reason: reason)
            }
        }
        if error is NIOConnectionError || error is ChannelError || error is SocketAddressError {
            return .offline(reason: "\(error)")
        }
        return .other(reason: "\(error)")
    }
}
