import APICore
import APICoreHTTPClient
import APICoreTestServer
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// A hostile or broken server cannot exhaust the app's memory: each transport refuses a body past its limit
/// with a typed error, announced (`Content-Length`) or streamed (chunked), and still reads one under it.
@Suite(.timeLimit(.minutes(10))) struct ResponseLimitTests {
    static let limit = 10_240

    static func routes(_ router: Router<BasicRequestContext>) {
        router.get("small") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0x61, count: 1_000))) }
        router.get("announced") { _, _ in
            Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0x62, count: 200_000)))
        }
        router.get("streamed") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<50 { try await writer.write(ByteBuffer(repeating: 0x63, count: 4_000)) }
                    try await writer.finish(nil)
                })
        }
    }

    static let transports: [String] = ["URLSession", "AsyncHTTPClient"]

    static func make(_ name: String) -> any HTTPTransport {
        name == "URLSession" ? URLSessionTransport(maximumResponseBytes: limit) : HTTPClientTransport(bodyLimit: limit)
    }

    @Test(arguments: transports) func aBodyPastTheLimitIsATypedErrorAndOneUnderItArrives(_ name: String) async throws {
        try await withTestServer({ Self.routes($0) }) { server in
            let transport = Self.make(name)
            for path in ["announced", "streamed"] {
                await #expect(throws: TransportError.responseTooLarge(limit: Self.limit), "\(name) \(path)") {
                    try await transport.send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent(path)))
                }
            }
            let small = try await transport.send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("small")))
            #expect(small.body.count == 1_000)
        }
    }
}
