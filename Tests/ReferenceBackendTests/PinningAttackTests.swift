import APICore
import APICorePinning
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOSSL
import ReferenceBackend
import ReferenceBackendTLS
import SwiftASN1
import Testing
import X509

/// Certificate pinning attacked as a man in the middle would, over real TLS on 127.0.0.1 (REQ SEC-1):
/// every certificate a server presents beyond its leaf is public and can be copied, so a pin counts only
/// for a key the handshake proved, on a verified path to a leaf that names the host. Each attack is
/// refused with `pinMismatch` and **no request reaches the attacker**.
@Suite(.timeLimit(.minutes(10))) struct PinningAttackTests {
    @Test func theRealServersCertificateAppendedBehindTheAttackersIsRefused() async throws {
        let real = try TestCertificate()
        let backup = try TestCertificate()
        let attacker = try TestCertificate()
        try await Self.expectRefused(attacker.server(presenting: [real]), pins: [real.pin, backup.pin])
        // The backup key's certificate appended does not help either.
        try await Self.expectRefused(attacker.server(presenting: [backup]), pins: [real.pin, backup.pin])
        try await Self.expectRefused(attacker.server(presenting: [real, backup]), pins: [real.pin, backup.pin])
    }

    @Test func aPinnedIntermediateAppendedBehindALeafItDidNotSignIsRefused() async throws {
        let intermediate = try TestCertificate.authority("Issuing CA")
        // The attacker's leaf names the intermediate as its issuer, but its own key signed it.
        let forged = try TestCertificate(
            subject: "server", names: [TestCertificate.loopback], isAuthority: false, issuer: nil, issuerName: "Issuing CA")
        try await Self.expectRefused(forged.server(presenting: [intermediate]), pins: [intermediate.pin, TestCertificate.unusedPin()])
        // An authority of the attacker's with the same name signs the leaf; the pinned one is appended.
        let lookalike = try TestCertificate.authority("Issuing CA")
        let leaf = try TestCertificate.leaf(signedBy: lookalike)
        try await Self.expectRefused(leaf.server(presenting: [intermediate]), pins: [intermediate.pin, TestCertificate.unusedPin()])
    }

    @Test func aLeafSignedByThePinnedIntermediateForAnotherHostIsRefused() async throws {
        let intermediate = try TestCertificate.authority()
        let otherHost = try TestCertificate.leaf(
            signedBy: intermediate, names: [.dnsName("api.example.com"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 2]))])
        try await Self.expectRefused(otherHost.server(presenting: [intermediate]), pins: [intermediate.pin, TestCertificate.unusedPin()])
        // A pinned leaf key names the host too.
        let pinnedLeafForAnotherHost = try TestCertificate(
            subject: "other", names: [.dnsName("other.example")], isAuthority: false, issuer: nil)
        try await Self.expectRefused(
            pinnedLeafForAnotherHost.server, pins: [pinnedLeafForAnotherHost.pin, TestCertificate.unusedPin()])
    }

    @Test func anExpiredLeafUnderThePinnedIntermediateIsRefused() async throws {
        let intermediate = try TestCertificate.authority()
        let day: TimeInterval = 86_400
        let expired = try TestCertificate.leaf(
            signedBy: intermediate, validity: Date().addingTimeInterval(-3 * day)...Date().addingTimeInterval(-day))
        try await Self.expectRefused(expired.server(presenting: [intermediate]), pins: [intermediate.pin, TestCertificate.unusedPin()])
        let notYetValid = try TestCertificate.leaf(
            signedBy: intermediate, validity: Date().addingTimeInterval(day)...Date().addingTimeInterval(3 * day))
        try await Self.expectRefused(notYetValid.server(presenting: [intermediate]), pins: [intermediate.pin, TestCertificate.unusedPin()])
    }

    /// The leaf's own pinned key, presented expired (or not yet valid), counts for nothing.
    @Test func aPinnedLeafKeyPresentedExpiredIsRefused() async throws {
        let day: TimeInterval = 86_400
        let expired = try TestCertificate(
            subject: "127.0.0.1", names: [TestCertificate.loopback], isAuthority: false, issuer: nil,
            validity: Date().addingTimeInterval(-3 * day)...Date().addingTimeInterval(-day))
        try await Self.expectRefused(expired.server, pins: [expired.pin, TestCertificate.unusedPin()])
        let notYetValid = try TestCertificate(
            subject: "127.0.0.1", names: [TestCertificate.loopback], isAuthority: false, issuer: nil,
            validity: Date().addingTimeInterval(day)...Date().addingTimeInterval(3 * day))
        try await Self.expectRefused(notYetValid.server, pins: [notYetValid.pin, TestCertificate.unusedPin()])
    }

    /// Security review two, finding 9: another spelling of the pinned host (case, a trailing dot) is the
    /// same host: pinned, so the attacker's certificate is refused as a pin mismatch, with no request sent.
    @Test func anotherSpellingOfThePinnedHostIsStillPinned() async throws {
        let real = try TestCertificate()
        let attacker = try TestCertificate(
            subject: "localhost", names: [.dnsName("localhost"), TestCertificate.loopback], isAuthority: false, issuer: nil)
        try await RecordingTLSServer.with(attacker.server) { server in
            let transport = try PinnedTransport(
                policy: PinningPolicy([.init(host: "LocalHost", pins: [real.pin, TestCertificate.unusedPin()])]))
            let port = server.baseURL.port ?? 0
            for spelling in ["localhost.", "LOCALHOST", "localhost"] {
                let url = try #require(URL(string: "https://\(spelling):\(port)/health"))
                await #expect(throws: TransportError.pinMismatch(host: "localhost"), "\(spelling)") {
                    try await transport.send(TransportRequest(method: .get, url: url, timeout: TestDeadline.request))
                }
            }
            #expect(server.received.isEmpty, "the attacker received \(server.received)")
        }
        let policy = try PinningPolicy([.init(host: "Bücher.example.", pins: [real.pin, TestCertificate.unusedPin()])])
        for spelling in ["xn--bcher-kva.example", "BÜCHER.example", "bücher.example."] {
            guard case .pinned = policy.decision(host: spelling, now: Date()) else {
                Issue.record("\(spelling) is not pinned")
                continue
            }
        }
    }

    @Test func aLeafSignedByAPinnedIntermediateConnectsAndSoDoesTheBackupAfterRotation() async throws {
        let current = try TestCertificate.authority("Issuing CA 1")
        let backup = try TestCertificate.authority("Issuing CA 2")
        let pins: Set = [current.pin, backup.pin]
        try await Self.expectConnects(TestCertificate.leaf(signedBy: current).server(presenting: [current]), pins: pins)
        try await Self.expectConnects(TestCertificate.leaf(signedBy: backup).server(presenting: [backup]), pins: pins)
        // The leaf's own pinned key connects too.
        let leaf = try TestCertificate()
        try await Self.expectConnects(leaf.server, pins: [leaf.pin, TestCertificate.unusedPin()])
    }

    /// A server presenting `tls` refuses nothing; the pinned transport must refuse it before any request byte.
    static func expectRefused(_ tls: TLSConfiguration, pins: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await RecordingTLSServer.with(tls) { server in
            let transport = try PinnedTransport(policy: PinningPolicy([.init(host: "127.0.0.1", pins: pins)]))
            await #expect(throws: TransportError.pinMismatch(host: "127.0.0.1"), sourceLocation: sourceLocation) {
                try await transport.send(server.request("health"))
            }
            #expect(server.received.isEmpty, "the attacker received \(server.received)", sourceLocation: sourceLocation)
        }
    }

    /// A server presenting `tls` proves a pinned key: the request goes through.
    static func expectConnects(_ tls: TLSConfiguration, pins: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await RecordingTLSServer.with(tls) { server in
            let transport = try PinnedTransport(policy: PinningPolicy([.init(host: "127.0.0.1", pins: pins)]))
            #expect(try await transport.send(server.request("health")).status == 204, sourceLocation: sourceLocation)
            #expect(server.received.map(\.target) == ["/health"], sourceLocation: sourceLocation)
        }
    }
}

/// A TLS server on 127.0.0.1 that answers every request with 204 and records what it received.
struct RecordingTLSServer: Sendable {
    /// One request as the server read it.
    struct Received: Sendable {
        let target: String
        let authority: String?
        let fields: HTTPFields
    }

    let baseURL: URL
    private let log: Locked<[Received]>

    /// What the server received so far.
    var received: [Received] { log.withLock { $0 } }

    /// A GET of `path` (as written, percent-encoding included) on this server.
    func request(_ path: String, fields: HTTPFields = [:]) -> TransportRequest {
        TransportRequest(
            method: .get, url: URL(string: baseURL.absoluteString + "/" + path) ?? baseURL, headerFields: fields,
            timeout: TestDeadline.request)
    }

    /// Runs `body` with a server presenting `tls`, and stops the server on every path.
    static func with(_ tls: TLSConfiguration, _ body: (RecordingTLSServer) async throws -> Void) async throws {
        let log = Locked<[Received]>([])
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            log.withLock { $0.append(Received(target: request.uri.string, authority: request.head.authority, fields: request.headers)) }
            return Response(status: .noContent)
        }
        var logger = Logger(label: "recording-tls-server")
        logger.logLevel = .critical
        let server = try await LocalServer.start(responder: responder, port: 0, protocol: try .https(tls), logger: logger)
        do {
            try await body(RecordingTLSServer(baseURL: server.baseURL, log: log))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
