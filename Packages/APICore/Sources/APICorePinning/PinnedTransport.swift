import APICore
import Crypto
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An ``HTTPTransport`` that enforces a ``PinningPolicy`` on every HTTPS connection, on Linux and Apple
/// platforms alike (REQ SEC-1). Built on SwiftNIO and NIOSSL, because FoundationNetworking's URLSession
/// on Linux offers no server-trust hook; it lives in its own product so a kit that does not use it links
/// no SwiftNIO.
///
/// The pins are checked in NIOSSL's verification callback, during the handshake: on a mismatch the
/// connection closes before the request is written, and the caller gets
/// ``TransportError/pinMismatch(host:)``. One connection per request (HTTP/1.1, `Connection: close`).
///
/// ```swift
/// let policy = try PinningPolicy([.init(host: "api.example.com", pins: [currentKeyPin, backupKeyPin])])
/// let rest = RESTClient(configuration: .init(baseURL: url, transport: PinnedTransport(policy: policy)))
/// ```
public final class PinnedTransport: HTTPTransport {
    private let policy: PinningPolicy
    private let group: any EventLoopGroup
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let pinnedContext: NIOSSLContext
    private let ordinaryContext: NIOSSLContext

    /// Creates a transport.
    /// - Parameters:
    ///   - policy: the pins.
    ///   - trustRoots: what ordinary validation trusts, for hosts without (or past) their pin set.
    ///   - now: the clock the pin sets' expiry is read against.
    ///   - group: the event loops (NIO's shared ones by default).
    ///   - logger: where an expired pin set is reported.
    /// - Throws: when TLS cannot be set up.
    public init(
        policy: PinningPolicy, trustRoots: NIOSSLTrustRoots = .default, now: @escaping @Sendable () -> Date = Date.init,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = Logger(label: "APICorePinning")
    ) throws {
        self.policy = policy
        self.group = group
        self.now = now
        self.logger = logger
        var pinned = TLSConfiguration.makeClientConfiguration()
        // The verification callback replaces NIOSSL's own checks: the pins are the trust anchor.
        pinned.certificateVerification = .fullVerification
        pinnedContext = try NIOSSLContext(configuration: pinned)
        var ordinary = TLSConfiguration.makeClientConfiguration()
        ordinary.trustRoots = trustRoots
        ordinaryContext = try NIOSSLContext(configuration: ordinary)
    }

    /// The pin of a certificate's key: base64 SHA-256 of its SubjectPublicKeyInfo DER.
    public static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// Sends `request` over a new connection, checking the server's keys against the policy first.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        guard request.url.scheme?.lowercased() == "https", let host = request.url.host else {
            throw .other(reason: "a pinned transport sends https requests only")
        }
        let port = request.url.port ?? 443
        let mismatch = NIOLockedValueBox(false)
        do {
            let cancel = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
            return try await withTaskCancellationHandler {
                try await exchange(request, host: host, port: port, mismatch: mismatch, cancel: cancel)
            } onCancel: {
                // A cancelled caller is answered at once (not after TLS's graceful shutdown) and the connection closed.
                cancel.withLockedValue { $0 }?()
            }
        } catch {
            if mismatch.withLockedValue({ $0 }) { throw .pinMismatch(host: host) }
            if Task.isCancelled { throw .cancelled }
            if let error = error as? TransportError { throw error }
            throw Self.transportError(error)
        }
    }

    private func exchange(
        _ request: TransportRequest, host: String, port: Int, mismatch: NIOLockedValueBox<Bool>,
        cancel: NIOLockedValueBox<(@Sendable () -> Void)?>
    ) async throws -> TransportResponse {
        let decision = policy.decision(host: host, chainPins: [], now: now())
        let pinned: Bool
        switch decision {
        case .notPinned(let expired):
            pinned = false
            if expired { logger.warning("The pin set has expired: ordinary certificate validation", metadata: ["host": "\(host)"]) }
        case .pinned, .mismatch:
            pinned = true
        }
        let policy = self.policy
        let now = self.now
        let context = pinned ? pinnedContext : ordinaryContext
        let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let responsePromise = group.next().makePromise(of: TransportResponse.self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(max(1, request.timeout.components.seconds)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls: NIOSSLClientHandler
                    if pinned {
                        tls = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host) { certificates, promise in
                            let pins = certificates.compactMap { try? PinnedTransport.pin(of: $0) }
                            if policy.decision(host: host, chainPins: pins, now: now()) == .pinned {
                                promise.succeed(.certificateVerified)
                            } else {
                                mismatch.withLockedValue { $0 = true }
                                promise.succeed(.failed)
                            }
                        }
                    } else {
                        tls = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
                    }
                    try channel.pipeline.syncOperations.addHandler(tls)
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: responsePromise))
                }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        let abort: @Sendable () -> Void = {
            responsePromise.fail(TransportError.cancelled)
            channel.close(promise: nil)
        }
        cancel.withLockedValue { $0 = abort }
        if Task.isCancelled { abort() }
        let (seconds, attoseconds) = request.timeout.components
        let limit = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let timeout = channel.eventLoop.scheduleTask(in: limit) {
            responsePromise.fail(TransportError.timedOut)
            channel.close(promise: nil)
        }
        defer { timeout.cancel() }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: request.url.port.map { "\(host):\($0)" } ?? host)
        headers.add(name: "Connection", value: "close")
        for field in request.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        if let body = request.body { headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        var path = request.url.path.isEmpty ? "/" : request.url.path
        if let query = request.url.query { path += "?" + query }
        let head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body = request.body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer { channel.close(promise: nil) }
        return try await responsePromise.futureResult.get()
    }

    private static func transportError(_ error: any Error) -> TransportError {
        switch error {
        case is NIOConnectionError, ChannelError.connectTimeout:
            .offline(reason: "\(error)")
        case ChannelError.ioOnClosedChannel, ChannelError.eof, NIOSSLError.uncleanShutdown:
            .connectionLost(reason: "\(error)")
        default:
            if let io = error as? IOError, [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(io.errnoCode) {
                .offline(reason: "\(error)")
            } else {
                .other(reason: "\(error)")
            }
        }
    }
}

/// Collects one HTTP/1.1 response.
private final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<TransportResponse>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(promise: EventLoopPromise<TransportResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            var fields = HTTPFields()
            for (name, value) in head.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            promise.succeed(TransportResponse(status: Int(head.status.code), headerFields: fields, body: Data(body.readableBytesView)))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(TransportError.connectionLost(reason: "the server closed the connection before the response ended"))
        context.fireChannelInactive()
    }
}
