import APICore
import APICorePinning
import APICoreREST
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIBCore
import NIOSSL
import ReferenceBackend
import ReferenceBackendTLS
import Testing

/// Certificate pinning over real TLS on 127.0.0.1 (REQ SEC-1): the reference backend serves HTTPS with a
/// certificate made for the test; a man in the middle presents another.
/// Six minutes: the e2e scenarios over TLS take two alone under ThreadSanitizer.
@Suite(.timeLimit(.minutes(10))) struct PinningTests {
    static var logger: Logger {
        var logger = Logger(label: "pinning-test")
        logger.logLevel = .critical
        return logger
    }

    /// An HTTPS reference backend presenting `certificate`.
    static func withHTTPSBackend(
        _ certificate: TestCertificate, funnelCount: Int = 10, _ body: (ReferenceBackend) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backend = try await ReferenceBackend.start(
            .init(
                databaseURL: directory.url.appendingPathComponent("backend.sqlite"), funnelCount: funnelCount, modelLatency: .zero,
                serverProtocol: try .https(certificate.server), passwordWork: .light, contactCount: 120, logger: logger))
        do {
            try await body(backend)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    static func health(_ base: URL) throws -> TransportRequest {
        TransportRequest(method: .get, url: base.appendingPathComponent("health"), timeout: TestDeadline.request)
    }

    @Test func thePinnedKeyAndTheBackupKeyConnect() async throws {
        let current = try TestCertificate()
        let backup = try TestCertificate()
        let policy = try PinningPolicy([.init(host: "127.0.0.1", pins: [current.pin, backup.pin])])
        let transport = try PinnedTransport(policy: policy)
        try await Self.withHTTPSBackend(current) { (backend: ReferenceBackend) async throws in
            #expect(backend.baseURL.scheme == "https")
            for _ in 0..<5 { #expect(try await transport.send(Self.health(backend.baseURL)).status == 204) }
            // The reference backend keeps the connection open: one handshake for the five.
            #expect(transport.statistics.connectionsOpened == 1)
        }
        // After the rotation the server presents the backup key: the same app still connects.
        try await Self.withHTTPSBackend(backup) { (backend: ReferenceBackend) async throws in
            #expect(try await transport.send(Self.health(backend.baseURL)).status == 204)
        }
    }

    @Test func aManInTheMiddleIsRefusedBeforeAnyRequestByteAndTheSessionIsNotExpired() async throws {
        let server = try TestCertificate()
        let attacker = try TestCertificate()
        let seen = Locked(0)
        let router = Router()
        router.on("{path+}", method: .get) { _, _ in
            seen.withLock { $0 += 1 }
            return Response(status: .ok)
        }
        router.on("{path+}", method: .post) { _, _ in
            seen.withLock { $0 += 1 }
            return Response(status: .ok)
        }
        let mitm = try await LocalServer.start(
            responder: router.buildResponder(), port: 0, protocol: try .https(attacker.server), logger: Self.logger)
        do {
            try await Self.refuse(mitm: mitm, server: server, seen: seen)
        } catch {
            await mitm.stop()
            throw error
        }
        await mitm.stop()
    }

    /// The man-in-the-middle checks, against `mitm` (which presents a key other than `server`'s).
    static func refuse(mitm: LocalServer, server: TestCertificate, seen: Locked<Int>) async throws {
        let policy = try PinningPolicy([.init(host: "127.0.0.1", pins: [server.pin, TestCertificate.unusedPin()])])
        let transport = try PinnedTransport(policy: policy)
        await #expect(throws: TransportError.pinMismatch(host: "127.0.0.1")) {
            try await transport.send(Self.health(mitm.baseURL))
        }
        // Through the REST client: a typed error naming the host, no auth event, nothing cached.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let events = AuthEvents()
        let counted = CountingTransport(transport)
        let rest = RESTClient(
            configuration: .init(
                baseURL: mitm.baseURL, transport: counted,
                environment: CacheEnvironment(logger: Self.logger, cachesDirectory: directory.url),
                tokenProvider: StaticProvider(), retry: RetryPolicy(maxAttempts: 3), authEvents: events))
        var received = events.stream().makeAsyncIterator()
        await #expect(throws: APIError.transport(.pinMismatch(host: "127.0.0.1"))) {
            try await rest.send(APIRequest<Data>(path: "/api/me"))
        }
        // A pin mismatch is not retried, and the man in the middle saw no request at all.
        #expect(counted.count() == 1)
        #expect(seen.withLock { $0 } == 0)
        events.publish(AuthEvent(kind: .forbidden, userId: "marker", path: "/marker"))
        #expect(await received.next()?.userId == "marker", "no 401/403 event came before the marker")
    }

    @Test func theEndToEndScenariosRunThroughThePinnedTransportAndFailClosedOnAnotherKey() async throws {
        let current = try TestCertificate()
        let backup = try TestCertificate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The catalog's scenarios need several pages.
        try await Self.withHTTPSBackend(current, funnelCount: 60) { (backend: ReferenceBackend) async throws in
            let pinned = try PinningPolicy([.init(host: "127.0.0.1", pins: [current.pin, backup.pin])])
            let report = try await EndToEnd.run(
                server: backend.baseURL, transport: { try PinnedTransport(policy: pinned) }, in: directory.url)
            #expect(report.passed, "\(report.results.filter { !$0.passed })")
            #expect(report.results.count == EndToEnd.scenarios.count)
            // Pinned to other keys, every scenario fails on the pin, and none reaches a cache or a session.
            let other = try PinningPolicy([.init(host: "127.0.0.1", pins: [backup.pin, TestCertificate.unusedPin()])])
            let refused = try await EndToEnd.run(
                server: backend.baseURL, transport: { try PinnedTransport(policy: other) },
                in: directory.url.appendingPathComponent("other"))
            #expect(refused.results.allSatisfy { !$0.passed })
            #expect(refused.results.first?.detail.contains("pinMismatch") == true, "\(refused.results.first?.detail ?? "")")
        }
    }

    /// A body past the pinned transport's limit stops being read: a typed error, and the next request on a new
    /// connection reads one under it.
    @Test func aBodyPastTheLimitIsATypedError() async throws {
        let certificate = try TestCertificate()
        let router = Router()
        router.get("big") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<50 { try await writer.write(ByteBuffer(repeating: 0x63, count: 4_000)) }
                    try await writer.finish(nil)
                })
        }
        router.get("small") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0x61, count: 1_000))) }
        let server = try await LocalServer.start(
            responder: router.buildResponder(), port: 0, protocol: try .https(certificate.server), logger: Self.logger)
        let policy = try PinningPolicy([.init(host: "127.0.0.1", pins: [certificate.pin, TestCertificate.unusedPin()])])
        let transport = try PinnedTransport(policy: policy, configuration: .init(maximumResponseBytes: 10_240))
        await #expect(throws: TransportError.responseTooLarge(limit: 10_240)) {
            try await transport.send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("big")))
        }
        let small = try await transport.send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("small")))
        #expect(small.body.count == 1_000)
        await server.stop()
    }

    @Test func aCancelledRequestEndsAtOnceAsCancelled() async throws {
        let certificate = try TestCertificate()
        let gate = AsyncGate()
        let arrived = Locked(false)
        let router = Router()
        router.get("slow") { _, _ in
            arrived.withLock { $0 = true }
            await gate.wait()
            return Response(status: .ok)
        }
        let server = try await LocalServer.start(
            responder: router.buildResponder(), port: 0, protocol: try .https(certificate.server), logger: Self.logger)
        let policy = try PinningPolicy([.init(host: "127.0.0.1", pins: [certificate.pin, TestCertificate.unusedPin()])])
        let transport = try PinnedTransport(policy: policy)
        let request = TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("slow"), timeout: .seconds(60))
        let task = Task { try await transport.send(request) }
        try await waitUntil("the request reached the server") { arrived.withLock { $0 } }
        task.cancel()
        // Not the 60 s timeout: the connection closes on cancellation.
        await #expect(throws: TransportError.cancelled) { try await task.value }
        gate.open()
        await server.stop()
    }

    @Test func anExpiredPinSetFallsBackToOrdinaryCertificateValidation() async throws {
        let server = try TestCertificate()
        let expired = try PinningPolicy([
            .init(
                host: "127.0.0.1", pins: [TestCertificate.unusedPin(), TestCertificate.unusedPin()], expires: Date().addingTimeInterval(-60)
            )
        ])
        try await Self.withHTTPSBackend(server) { (backend: ReferenceBackend) async throws in
            // The pins no longer apply; ordinary validation does, and a self-signed certificate is not trusted.
            let ordinary = try PinnedTransport(policy: expired)
            await #expect {
                try await ordinary.send(Self.health(backend.baseURL))
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                if case .pinMismatch = error { return false }
                return true
            }
            // With the certificate among the trusted roots, ordinary validation accepts it.
            let trusting = try PinnedTransport(policy: expired, trustRoots: .certificates([server.certificate]))
            #expect(try await trusting.send(Self.health(backend.baseURL)).status == 204)
        }
    }

    @Test func aPolicyNeedsABackupPinAndWellFormedPins() {
        let pin = TestCertificate.unusedPin()
        #expect(throws: PinningPolicyError.noBackupPin(host: "api.example.com")) {
            try PinningPolicy([.init(host: "api.example.com", pins: [pin])])
        }
        #expect(throws: PinningPolicyError.invalidPin(host: "api.example.com", pin: "abc")) {
            try PinningPolicy([.init(host: "api.example.com", pins: [pin, "abc"])])
        }
        let set = PinningPolicy.PinSet(
            host: "API.example.com", pins: [pin, TestCertificate.unusedPin()], expires: Date(timeIntervalSince1970: 2_000))
        let policy = try? PinningPolicy([set])
        #expect(policy?.decision(host: "api.EXAMPLE.com", now: Date(timeIntervalSince1970: 1_000)) == .pinned(set))
        #expect(policy?.decision(host: "api.example.com", now: Date(timeIntervalSince1970: 2_000)) == .notPinned(expired: true))
        #expect(policy?.decision(host: "cdn.example.com", now: Date()) == .notPinned(expired: false))
    }
}

/// A signed-in user, so the request carries a token the man in the middle must never see.
private struct StaticProvider: TokenProvider {
    func currentCredentials() async -> Credentials? { Credentials(accessToken: "secret-token", userId: "u1") }
}
