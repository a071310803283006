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
@Suite(.timeLimit(.minutes(3))) struct CacheProxyEncodingTests {
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

    @Test func anUnknownContentEncodingPassesThroughOnAMissAndAHit() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await CacheProxyTests.Fixture.start(upstream: origin.baseURL)
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
        await fixture.proxy.stop()
        await origin.stop()
    }

    @Test func aChunkedBodyIsForwardedWholeAndServedFromTheCache() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await CacheProxyTests.Fixture.start(upstream: origin.baseURL)
        for expected in ["MISS", "HIT"] {
            let response = try await fixture.get("/chunked")
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "first second third")
            #expect(response.headerFields[ProxyHeader.xCache] == expected)
        }
        #expect(fixture.upstream.count("/chunked") == 1)
        await fixture.proxy.stop()
        await origin.stop()
    }
}
