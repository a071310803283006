import APICore
import APICorePinning
import Benchmark
import Crypto
import Foundation
import Logging
import NIOSSL
import ReferenceBackend
import ReferenceBackendTLS
import SwiftASN1
import X509

// Issue 29: 100 sequential GETs of /health to the HTTPS reference backend through PinnedTransport, with a
// connection per request (before: what the transport did) and with connections kept (after), side by
// side with an unpinned NIO client (the same transport for a host without pins, ordinary validation).
// Each iteration starts with no idle connection; the custom metric counts TLS handshakes per 100 requests.

/// An HTTPS reference backend presenting a self-signed certificate for 127.0.0.1, and that certificate's pin.
struct HTTPSBackend: Sendable {
    let backend: ReferenceBackend
    let certificate: NIOSSLCertificate
    let pin: String

    static func start() async throws -> HTTPSBackend {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("127.0.0.1") }
        let x509 = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3_600), notValidAfter: Date().addingTimeInterval(86_400), issuer: name,
            subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(x509)
        let certificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)))
        var logger = Logger(label: "bench-https-backend")
        logger.logLevel = .critical
        let directory = scratchDirectory("PinnedBench")
        let backend = try await startBackend(
            .init(
                databaseURL: directory.appendingPathComponent("backend.sqlite"), funnelCount: 10, serverProtocol: try .https(tls),
                logger: logger))
        return HTTPSBackend(backend: backend, certificate: certificate, pin: try PinnedTransport.pin(of: certificate))
    }

    /// 100 sequential GETs through `transport`, from no idle connection; returns the handshakes they cost.
    func hundredGets(_ transport: PinnedTransport) async throws -> Int {
        transport.closeIdleConnections()
        let before = transport.statistics.connectionsOpened
        let request = TransportRequest(method: .get, url: backend.baseURL.appendingPathComponent("health"))
        for _ in 0..<100 {
            let response = try await transport.send(request)
            guard response.status == 204 else { throw BenchmarkSetupError.status(response.status) }
        }
        return transport.statistics.connectionsOpened - before
    }
}

func pinnedTransportBenchmarks() {
    let handshakes = BenchmarkMetric.custom("TLS handshakes per 100 requests", polarity: .prefersSmaller, useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, handshakes], maxDuration: .seconds(20), maxIterations: 30)
    let variants: [(String, @Sendable (HTTPSBackend) throws -> PinnedTransport)] = [
        (
            "PinnedTransport, a connection per request (before)",
            { backend in
                try PinnedTransport(
                    policy: PinningPolicy([.init(host: "127.0.0.1", pins: [backend.pin, unusedPin()])]),
                    configuration: .init(maximumIdleConnectionsPerHost: 0))
            }
        ),
        (
            "PinnedTransport, connections kept (after)",
            { backend in
                try PinnedTransport(policy: PinningPolicy([.init(host: "127.0.0.1", pins: [backend.pin, unusedPin()])]))
            }
        ),
        (
            "unpinned NIO client, connections kept (baseline)",
            { backend in
                try PinnedTransport(policy: PinningPolicy([]), trustRoots: .certificates([backend.certificate]))
            }
        ),
    ]
    for (name, make) in variants {
        Benchmark("HTTPS 100 sequential GETs: " + name, configuration: configuration) {
            (benchmark: Benchmark, setup: (HTTPSBackend, PinnedTransport)) in
            for _ in benchmark.scaledIterations {
                benchmark.measurement(handshakes, try await setup.0.hundredGets(setup.1))
            }
        } setup: {
            let backend = try await HTTPSBackend.start()
            return (backend, try make(backend))
        }
    }
}

/// The pin of a backup key nobody uses.
private func unusedPin() -> String {
    Data(SHA256.hash(data: Array(P256.Signing.PrivateKey().publicKey.derRepresentation))).base64EncodedString()
}
