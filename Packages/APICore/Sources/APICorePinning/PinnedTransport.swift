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
import NIOTLS

/// An `HTTPTransport` that enforces a `PinningPolicy` on every HTTPS connection, on Linux and Apple
/// platforms alike (REQ SEC-1). Built on SwiftNIO and NIOSSL, because FoundationNetworking's URLSession
/// on Linux offers no server-trust hook; it lives in its own product so a kit that does not use it links
/// no SwiftNIO.
///
/// The pins are checked once per connection, during the handshake, against what the handshake proved
/// (see `PinningPolicy` for the trust model): a pinned leaf key, or a pinned intermediate or root key on a
/// verified path from a leaf that names the host. On a mismatch the connection closes before any request
/// byte is written, and the caller gets `TransportError/pinMismatch(host:)`.
///
/// Connections are HTTP/1.1 and kept alive: a few idle ones per host (``Configuration``) are reused, so a
/// screen's requests cost one TCP and TLS handshake, not one each. A connection is filed under the pin set
/// its handshake was checked against and never reused once the host's pins expire.
///
/// ```swift
/// let policy = try PinningPolicy([.init(host: "api.example.com", pins: [intermediatePin, backupPin])])
/// let rest = RESTClient(configuration: .init(baseURL: url, transport: try PinnedTransport(policy: policy)))
/// ```
public final class PinnedTransport: HTTPTransport {
    /// How connections are kept.
    public struct Configuration: Sendable {
        /// Idle connections kept per host and port for reuse; 0 opens a connection per request.
        public var maximumIdleConnectionsPerHost: Int
        /// How long an idle connection is kept before it is closed.
        public var idleTimeout: Duration
        /// The largest response body read; past it reading stops, the connection is closed and the request
        /// fails with `TransportError.responseTooLarge(limit:)`.
        public var maximumResponseBytes: Int

        /// Creates a configuration: 4 idle connections per host, closed after 60 s unused, bodies up to 64 MiB.
        public init(maximumIdleConnectionsPerHost: Int = 4, idleTimeout: Duration = .seconds(60), maximumResponseBytes: Int = 64 << 20) {
            self.maximumIdleConnectionsPerHost = maximumIdleConnectionsPerHost
            self.idleTimeout = idleTimeout
            self.maximumResponseBytes = maximumResponseBytes
        }
    }

    /// What the transport did, for tests and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Connections opened, each with one TLS handshake.
        public var connectionsOpened: Int
        /// Requests sent on a connection an earlier request had opened.
        public var connectionsReused: Int

        /// Creates statistics.
        public init(connectionsOpened: Int, connectionsReused: Int) {
            self.connectionsOpened = connectionsOpened
            self.connectionsReused = connectionsReused
        }
    }

    private let policy: PinningPolicy
    private let group: any EventLoopGroup
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let pinnedContext: NIOSSLContext
    private let ordinaryContext: NIOSSLContext
    private let maximumResponseBytes: Int
    private let pool: ConnectionPool

    /// Creates a transport.
    /// - Parameters:
    ///   - policy: the pins.
    ///   - trustRoots: what ordinary validation trusts, for hosts without (or past) their pin set.
    ///   - configuration: how connections are kept for reuse, and the largest body read.
    ///   - now: the clock the pin sets' expiry and the certificates' validity dates are read against.
    ///   - group: the event loops (NIO's shared ones by default).
    ///   - logger: where an expired pin set is reported.
    /// - Throws: when TLS cannot be set up.
    public init(
        policy: PinningPolicy, trustRoots: NIOSSLTrustRoots = .default, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Date = Date.init, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "APICorePinning")
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
        pool = ConnectionPool(
            maximumIdlePerHost: max(0, configuration.maximumIdleConnectionsPerHost), idleTimeout: TimeAmount(configuration.idleTimeout))
        maximumResponseBytes = max(0, configuration.maximumResponseBytes)
    }

    deinit {
        pool.shutDown()
    }

    /// The pin of a certificate's key: base64 SHA-256 of its SubjectPublicKeyInfo DER.
    public static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// Connections opened and reused so far.
    public var statistics: Statistics {
        let counts = pool.counts
        return Statistics(connectionsOpened: counts.opened, connectionsReused: counts.reused)
    }

    /// Closes every idle connection (the app going to the background). Requests sent afterwards open new
    /// ones, which are kept again.
    public func closeIdleConnections() {
        pool.closeIdle()
    }

    /// Sends `request` on a kept connection to its host, or a new one whose handshake proved a pinned key.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        // One spelling per host (case, a trailing dot, IDNA): `API.example.com.` is looked up, connected
        // to and verified as the pinned `api.example.com` (security review two, finding 9).
        guard request.url.scheme?.lowercased() == "https", let host = request.url.host.map(URLOrigin.normalizedHost) else {
            throw .other(reason: "a pinned transport sends https requests only")
        }
        let head = try RequestHead.make(request, host: host, port: request.url.port)
        let key: ConnectionPool.Key
        switch policy.decision(host: host, now: now()) {
        case .pinned(let set):
            key = .init(host: host, port: request.url.port ?? 443, pins: set)
        case .notPinned(let expired):
            if expired { logger.warning("The pin set has expired: ordinary certificate validation", metadata: ["host": "\(host)"]) }
            key = .init(host: host, port: request.url.port ?? 443, pins: nil)
        }
        let idempotent = [.get, .head, .options, .put, .delete].contains(request.method)
        do {
            if let kept = pool.take(key) {
                do {
                    return try await exchange(head, body: request.body, on: kept, key: key, timeout: request.timeout)
                } catch TransportError.connectionLost where idempotent && !Task.isCancelled {
                    // The server closed the kept connection as the request went out: once more, on a new one.
                }
            }
            let channel = try await connect(key, timeout: request.timeout)
            return try await exchange(head, body: request.body, on: channel, key: key, timeout: request.timeout)
        } catch {
            if Task.isCancelled { throw .cancelled }
            if let error = error as? TransportError { throw error }
            throw Self.transportError(error)
        }
    }

    /// Sends one request on `channel` and files the channel for reuse when the response allows it.
    private func exchange(
        _ head: HTTPRequestHead, body: Data?, on channel: any Channel, key: ConnectionPool.Key, timeout: Duration
    ) async throws -> TransportResponse {
        let promise = channel.eventLoop.makePromise(of: HTTP1Exchange.self)
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            promise.fail(TransportError.timedOut)
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        let result = try await withTaskCancellationHandler {
            channel.writeAndFlush(HTTP1Request(head: head, body: body, promise: promise), promise: nil)
            return try await promise.futureResult.get()
        } onCancel: {
            // A cancelled caller is answered at once (not after TLS's graceful shutdown) and the connection closed.
            promise.fail(TransportError.cancelled)
            channel.close(promise: nil)
        }
        if result.keepAlive && channel.isActive {
            pool.giveBack(channel, as: key)
        } else {
            channel.close(promise: nil)
        }
        return result.response
    }

    /// Opens a connection and completes its TLS handshake: for a pinned host, the pins are checked here.
    private func connect(_ key: ConnectionPool.Key, timeout: Duration) async throws -> any Channel {
        let mismatch = NIOLockedValueBox(false)
        let handshake = group.next().makePromise(of: Void.self)
        let context = key.pins == nil ? ordinaryContext : pinnedContext
        let serverName = IPAddressText.isAddress(key.host) ? nil : key.host
        let verifier = key.pins.map { PinVerifier(pins: $0.pins, host: key.host, now: now()) }
        let maximumResponseBytes = maximumResponseBytes
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(max(1, timeout.components.seconds)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls: NIOSSLClientHandler
                    if let verifier {
                        tls = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, promise in
                            Task {
                                let proven = await verifier.verify(certificates)
                                if !proven { mismatch.withLockedValue { $0 = true } }
                                promise.succeed(proven ? .certificateVerified : .failed)
                            }
                        }
                    } else {
                        tls = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                    }
                    try channel.pipeline.syncOperations.addHandler(tls)
                    try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTP1ClientHandler(maximumBodyBytes: maximumResponseBytes))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: key.host, port: key.port).get()
        } catch {
            handshake.fail(error)
            throw error
        }
        pool.recordOpened()
        do {
            try await withTaskCancellationHandler {
                try await handshake.futureResult.get()
            } onCancel: {
                handshake.fail(TransportError.cancelled)
                channel.close(promise: nil)
            }
        } catch {
            channel.close(promise: nil)
            if mismatch.withLockedValue({ $0 }) { throw TransportError.pinMismatch(host: key.host) }
            throw error
        }
        return channel
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

/// Completes when the TLS handshake does (for a pinned host: when the pins were proven) and fails when
/// the handshake or the connection does.
private final class HandshakeWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny

    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(TransportError.connectionLost(reason: "the connection closed during the TLS handshake"))
        context.fireChannelInactive()
    }
}

extension TimeAmount {
    /// `duration` on NIO's clock, to the nanosecond.
    init(_ duration: Duration) {
        self = .nanoseconds(duration.clampedNanoseconds)
    }
}
