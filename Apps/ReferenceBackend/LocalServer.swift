import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird responder listening on 127.0.0.1 in its own service group: how the reference
/// backend and `mib proxy` run, in the binary and in tests.
public final class LocalServer: Sendable {
    /// Where it listens: `http://127.0.0.1:<port>`.
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
    ///   - logger: the server's logger.
    /// - Throws: ``LocalServerError/couldNotListen(port:)`` when the port cannot be bound.
    public static func start<Responder: HTTPResponder>(responder: Responder, port: Int, logger: Logger) async throws
        -> LocalServer where Responder.Context: InitializableFromSource<ApplicationRequestContextSource>
    {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0, let url = URL(string: "http://127.0.0.1:\(bound)") else {
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

/// Why a ``LocalServer`` could not start.
public enum LocalServerError: Error, Sendable, Hashable {
    /// The port could not be bound (in use, or not allowed).
    case couldNotListen(port: Int)
}
