import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// A Hummingbird responder listening on 127.0.0.1 in its own service group: how the reference
/// backend and `mib proxy` run, in the binary and in tests.
public final class LocalServer: Sendable {
    /// Where it listens: `http://127.0.0.1:<port>`, or `https://` with TLS.
    public let baseURL: URL
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(baseURL: URL, group: ServiceGroup, running: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.group = group
        self.running = running
    }

    /// Starts listening on 127.0.0.1 and returns once the port is bound.
    /// - Parameters:
    ///   - responder: answers every request.
    ///   - port: the port; 0 picks a free one.
    ///   - keepsResponseDate: whether the responder's `Date` goes out as it is (an intermediary such as
    ///     `mib proxy` forwards the origin's); otherwise, as servers do, every response gets the
    ///     server's own `Date`.
    ///   - tls: serve HTTPS with this configuration (certificate and key); `nil` for plain HTTP.
    ///   - logger: the server's logger.
    /// - Throws: ``LocalServerError/couldNotListen(port:)`` when the port cannot be bound.
    public static func start<Responder: HTTPResponder>(
        responder: Responder, port: Int, keepsResponseDate: Bool = false, tls: TLSConfiguration? = nil,
        logger: Logger
    ) async throws
        -> LocalServer where Responder.Context: InitializableFromSource<ApplicationRequestContextSource>
    {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let onServerRunning: @Sendable (any Channel) async -> Void = { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let service: any Service =
            keepsResponseDate
            ? DateKeepingServer(responder: responder, port: port, logger: logger, onServerRunning: onServerRunning)
            : Application(
                responder: responder, server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
                configuration: .init(address: .hostname("127.0.0.1", port: port)), onServerRunning: onServerRunning, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0, let url = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(bound)")
        else {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw LocalServerError.couldNotListen(port: port)
        }
        return LocalServer(baseURL: url, group: group, running: running)
    }

    /// Stops listening and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}

/// An HTTP/1.1 server that sends each response as the responder made it. Hummingbird's
/// `Application` sets `Date` on every response it sends, which would replace the origin's `Date` on a
/// response `mib proxy` forwards or serves from its cache.
private struct DateKeepingServer<Responder: HTTPResponder>: Service
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let port: Int
    let logger: Logger
    let onServerRunning: @Sendable (any Channel) async -> Void

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { (request, responseWriter: consuming ResponseWriter, channel) in
                let context = Responder.Context(source: .init(channel: channel, logger: logger))
                let response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    logger.debug("Unhandled error", metadata: ["error": "\(error)"])
                    response = Response(status: .internalServerError)
                }
                try await responseWriter.write(response: response.head, body: response.body)
            },
            onServerRunning: onServerRunning)
        try await server.run()
    }
}

/// Why a ``LocalServer`` could not start.
public enum LocalServerError: Error, Sendable, Hashable {
    /// The port could not be bound (in use, or not allowed).
    case couldNotListen(port: Int)
}
