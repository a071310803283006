import CacheKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A real Hummingbird server on 127.0.0.1 with an ephemeral port, started by a test, that records
/// every request it receives: what a kit's tests use to exercise its networking over real HTTP.
/// Routes decide everything else (validators, delays, faults).
///
/// ```swift
/// try await withTestServer({ router in
///     router.get("notes") { request, _ in
///         request.headers[.ifNoneMatch] == "\"v1\"" ? reply(.notModified) : reply(.ok, #"[]"#, [.eTag: "\"v1\""])
///     }
/// }) { server in
///     let client = RESTClient(configuration: .init(baseURL: server.baseURL))
///     _ = try await client.send(APIRequest<Data>(path: "/notes"))
///     #expect(server.count("/notes") == 1)
/// }
/// ```
///
/// A product of its own (`APICoreTestServer`), for test targets only: it links SwiftNIO, which no kit
/// library does.
public final class TestServer: Sendable {
    /// A request as the server saw it.
    public struct Received: Sendable {
        /// The method.
        public var method: HTTPRequest.Method
        /// The path, without the query.
        public var path: String
        /// The query, if any.
        public var query: String?
        /// The header fields.
        public var headerFields: HTTPFields
    }

    /// Where it listens: `http://127.0.0.1:<port>`.
    public let baseURL: URL
    private let recorder: Recorder
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(baseURL: URL, recorder: Recorder, group: ServiceGroup, running: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.recorder = recorder
        self.group = group
        self.running = running
    }

    /// Every request received, in order.
    public var requests: [Received] { recorder.received.withLock { $0 } }

    /// How many requests reached `path`.
    public func count(_ path: String) -> Int { requests.filter { $0.path == path }.count }

    /// Starts a server with the routes `configure` adds.
    public static func start(_ configure: (Router<BasicRequestContext>) -> Void) async throws -> TestServer {
        let log = Recorder()
        let router = Router()
        router.add(middleware: log)
        configure(router)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "TestServer")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else {
            await group.triggerGracefulShutdown()
            throw CancellationError()
        }
        return TestServer(baseURL: url, recorder: log, group: group, running: running)
    }

    /// Stops the server and waits until it has (calling it again does nothing).
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }

    private final class Recorder: RouterMiddleware, Sendable {
        typealias Context = BasicRequestContext
        let received = Locked<[Received]>([])

        func handle(
            _ request: Request, context: Context,
            next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            received.withLock {
                $0.append(
                    Received(
                        method: request.method, path: request.uri.path, query: request.uri.query,
                        headerFields: request.headers))
            }
            return try await next(request, context)
        }
    }
}

/// Runs `body` against a server with these routes, and stops the server afterwards.
public func withTestServer(
    _ configure: (Router<BasicRequestContext>) -> Void,
    _ body: (TestServer) async throws -> Void
) async throws {
    let server = try await TestServer.start(configure)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A response with a body and header fields (`Content-Type: application/json` unless given).
public func reply(_ status: HTTPResponse.Status = .ok, _ body: String = "", _ fields: HTTPFields = [:]) -> Response {
    var fields = fields
    if fields[.contentType] == nil { fields[.contentType] = "application/json" }
    return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
}
