import APICore
import CacheKit
import Foundation
import HTTPTypes
import NIOHTTP1
import NIOSSL
import Testing

@testable import APICorePinning

/// `PinnedTransport` keeps connections alive (one handshake for a screen's requests, the pins checked once
/// per connection), never reuses one across a change of the host's pins, and writes the request line as
/// given (REQ SEC-1).
@Suite(.timeLimit(.minutes(10))) struct PinnedConnectionTests {
    @Test func aHundredSequentialRequestsShareOneHandshake() async throws {
        let certificate = try TestCertificate()
        try await RecordingTLSServer.with(certificate.server) { server in
            let transport = try PinnedTransport(policy: certificate.policy())
            for index in 0..<100 {
                #expect(try await transport.send(server.request("item/\(index)")).status == 204)
            }
            #expect(transport.statistics == .init(connectionsOpened: 1, connectionsReused: 99))
            #expect(server.received.count == 100)
            // Closed idle connections are not reused: the next request opens (and checks) a new one.
            transport.closeIdleConnections()
            #expect(try await transport.send(server.request("after")).status == 204)
            #expect(try await transport.send(server.request("after-2")).status == 204)
            #expect(transport.statistics == .init(connectionsOpened: 2, connectionsReused: 100))
        }
    }

    @Test func withNoIdleConnectionsKeptEveryRequestOpensItsOwn() async throws {
        let certificate = try TestCertificate()
        try await RecordingTLSServer.with(certificate.server) { server in
            let transport = try PinnedTransport(policy: certificate.policy(), configuration: .init(maximumIdleConnectionsPerHost: 0))
            for _ in 0..<3 { #expect(try await transport.send(server.request("health")).status == 204) }
            #expect(transport.statistics == .init(connectionsOpened: 3, connectionsReused: 0))
        }
    }

    @Test func aConnectionIsNeverReusedOnceTheHostsPinsExpire() async throws {
        let certificate = try TestCertificate()
        // The certificate is valid around the real time, so the injected clock starts there.
        let expiry = Date().addingTimeInterval(600)
        let now = Locked(expiry.addingTimeInterval(-60))
        try await RecordingTLSServer.with(certificate.server) { server in
            // Ordinary validation (after the expiry) trusts the certificate; the pin set's clock is injected.
            let transport = try PinnedTransport(
                policy: certificate.policy(expires: expiry), trustRoots: .certificates([certificate.certificate]),
                now: { now.withLock { $0 } })
            #expect(try await transport.send(server.request("one")).status == 204)
            #expect(try await transport.send(server.request("two")).status == 204)
            #expect(transport.statistics == .init(connectionsOpened: 1, connectionsReused: 1))
            now.withLock { $0 = expiry }
            #expect(try await transport.send(server.request("three")).status == 204)
            #expect(transport.statistics == .init(connectionsOpened: 2, connectionsReused: 1))
        }
    }

    @Test func theRequestTargetGoesOutPercentEncodedAsGiven() async throws {
        let certificate = try TestCertificate()
        try await RecordingTLSServer.with(certificate.server) { server in
            let transport = try PinnedTransport(policy: certificate.policy())
            // Decoded, %2F and %3F would change the route, %23 would cut the query, %0D%0A would start a header.
            let path = "files/a%2Fb%3Fc%23d%0D%0AX-Injected:%20yes?q=%23x%0D%0A&r=1"
            #expect(try await transport.send(server.request(path)).status == 204)
            let received = try #require(server.received.first)
            #expect(received.target == "/" + path)
            #expect(received.fields[HTTPField.Name("X-Injected")!] == nil)
            #expect(received.authority == "127.0.0.1:\(server.baseURL.port ?? 0)")
        }
    }

    /// `HTTPFields` turns CR, LF and NUL into spaces by itself; the other control bytes it keeps (a lenient
    /// value) are the product's to refuse: the request fails before anything is written.
    @Test func aFieldValueWithAControlByteIsRefusedBeforeAnythingIsSent() async throws {
        let certificate = try TestCertificate()
        try await RecordingTLSServer.with(certificate.server) { server in
            let transport = try PinnedTransport(policy: certificate.policy())
            for byte: UInt8 in [0x01, 0x0B, 0x1B, 0x7F] {
                var fields = HTTPFields()
                fields.append(HTTPField(name: HTTPField.Name("X-Note")!, lenientValue: Array("a".utf8) + [byte] + Array("b".utf8)))
                #expect(fields[HTTPField.Name("X-Note")!]?.utf8.contains(byte) == true, "HTTPFields kept the byte \(byte)")
                let error = await #expect(throws: TransportError.self) { try await transport.send(server.request("note", fields: fields)) }
                guard case .invalidRequest(let reason)? = error, reason.contains("control character") else {
                    Issue.record("byte \(byte): \(String(reflecting: error))")
                    continue
                }
            }
            #expect(server.received.isEmpty, "\(server.received.count) requests reached the server")
        }
    }

    /// Security review two, finding 12: a caller's `Host`, `Content-Length` or `Transfer-Encoding` never goes
    /// out beside the transport's own (two lengths, or a length and chunking, are how requests are smuggled).
    @Test func theCallersFramingFieldsAreDropped() async throws {
        let certificate = try TestCertificate()
        try await RecordingTLSServer.with(certificate.server) { server in
            let transport = try PinnedTransport(policy: certificate.policy())
            let fields: HTTPFields = [
                HTTPField.Name("Host")!: "evil.example", .contentLength: "1000", .transferEncoding: "chunked", .connection: "close",
                HTTPField.Name("X-Kept")!: "yes",
            ]
            var request = server.request("note", fields: fields)
            request.method = .post
            request.body = Data("hello".utf8)
            #expect(try await transport.send(request).status == 204)
            let received = try #require(server.received.first)
            #expect(received.authority == "127.0.0.1:\(server.baseURL.port ?? 0)")
            #expect(received.fields[values: .contentLength] == ["5"])
            #expect(received.fields[.transferEncoding] == nil)
            #expect(received.fields[HTTPField.Name("X-Kept")!] == "yes")
            // The head as written, before any server's parser tidies it: one Host, one length, no chunking.
            let head = try RequestHead.make(request, host: "127.0.0.1", port: server.baseURL.port)
            #expect(head.headers["Host"] == ["127.0.0.1:\(server.baseURL.port ?? 0)"])
            #expect(head.headers["Content-Length"] == ["5"])
            #expect(head.headers["Transfer-Encoding"].isEmpty && head.headers["Connection"].isEmpty)
        }
    }
}
