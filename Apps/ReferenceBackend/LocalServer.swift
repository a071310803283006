import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
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
    ///   - protocol: what it speaks: ``ServerProtocol/http`` by default, or HTTPS built by the
    ///     `ReferenceBackendTLS` module.
    ///   - logger: the server's logger.
    /// - Throws: ``LocalServerError/couldNotListen(port:)`` when the port cannot be bound.
    public static func start<Responder: HTTPResponder>(
        responder: Responder, port: Int, keepsResponseDate: Bool = false, protocol serverProtocol: ServerProtocol = .http,
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
                responder: responder, server: serverProtocol.builder,
                configuration: .init(address: .hostname("127.0.0.1", port: port)), onServerRunning: onServerRunning, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0, let url = URL(string: "\(serverProtocol.scheme)://127.0.0.1:\(bound)")
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

/// What a ``LocalServer`` speaks: plain HTTP/1.1, or HTTPS as the `ReferenceBackendTLS` module builds it
/// (kept in a module of its own, so that nothing that serves plain HTTP compiles a TLS library).
public struct ServerProtocol: Sendable {
    /// Builds the server's channel.
    public let builder: HTTPServerBuilder
    /// The scheme of the server's ``LocalServer/baseURL``: `http` or `https`.
    public let scheme: String

    /// Creates a protocol from Hummingbird's server builder and the scheme it serves.
    public init(builder: HTTPServerBuilder, scheme: String) {
        self.builder = builder
        self.scheme = scheme
    }

    /// Plain HTTP/1.1.
    public static let http = ServerProtocol(builder: .http1(), scheme: "http")
}

/// Why a ``LocalServer`` could not start.
public enum LocalServerError: Error, Sendable, Hashable {
    /// The port could not be bound (in use, or not allowed).
    case couldNotListen(port: Int)
}
