import APICore
import APICoreHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIBCore
import NIOCore
import ReferenceBackend
import Testing

/// `mib proxy` passes bodies through as the origin sent them (RFC 9110 §8.4): an unknown
/// `Content-Encoding` keeps its bytes and its field, on a miss and from the cache, and a chunked body is
/// reassembled and forwarded whole. Through FoundationNetworking on Linux both ended in a 502.
@Suite(.timeLimit(.minutes(10))) struct CacheProxyEncodingTests {
    static let coded = Data([0x1F, 0x8B, 0x08, 0x00, 0xFE, 0x42, 0x00, 0x0A])

    static func startOrigin() async throws -> LocalServer {
        let router = Router()
        router.get("coded") { _, _ in
            Response(
                status: .ok, headers: [.contentEncoding: "x-unknown", .cacheControl: "max-age=60", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(bytes: coded)))
        }
        router.get("chunked") { _, _ in
            Response(
                status: .ok, headers: [.cacheControl: "max-age=60", .contentType: "text/plain"],
                body: ResponseBody { writer in
                    for part in ["first ", "second ", "third"] { try await writer.write(ByteBuffer(string: part)) }
                    try await writer.finish(nil)
                })
        }
        var logger = Logger(label: "origin")
        logger.logLevel = .warning
        return try await LocalServer.start(responder: router.buildResponder(), port: 0, logger: logger)
    }

    /// Runs `body` with the origin and a proxy in front of it, and stops both on every way out.
    static func withProxy(_ body: (CacheProxyTests.Fixture) async throws -> Void) async throws {
        let origin = try await startOrigin()
        do {
            let fixture = try await CacheProxyTests.Fixture.start(upstream: origin.baseURL)
            do {
                try await body(fixture)
            } catch {
                await fixture.proxy.stop()
                throw error
            }
            await fixture.proxy.stop()
        } catch {
            await origin.stop()
            throw error
        }
        await origin.stop()
    }

    @Test func anUnknownContentEncodingPassesThroughOnAMissAndAHit() async throws {
        try await Self.withProxy { fixture in
            let client = HTTPClientTransport()
            let url = try #require(URL(string: fixture.proxy.baseURL.absoluteString + "/coded"))
            for expected in ["MISS", "HIT"] {
                let response = try await client.send(TransportRequest(method: .get, url: url, headerFields: [.acceptEncoding: "x-unknown"]))
                #expect(response.status == 200)
                #expect(response.body == Self.coded)
                #expect(response.headerFields[.contentEncoding] == "x-unknown")
                #expect(response.headerFields[ProxyHeader.xCache] == expected)
            }
            #expect(fixture.upstream.count("/coded") == 1)
        }
    }

    @Test func aChunkedBodyIsForwardedWholeAndServedFromTheCache() async throws {
        try await Self.withProxy { fixture in
            for expected in ["MISS", "HIT"] {
                let response = try await fixture.get("/chunked")
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == "first second third")
                #expect(response.headerFields[ProxyHeader.xCache] == expected)
            }
            #expect(fixture.upstream.count("/chunked") == 1)
        }
    }
}
