import APICore
import APICoreHTTPClient
import APICoreTestServer
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// The AsyncHTTPClient transport over real HTTP on 127.0.0.1: bodies as the server sent them (an unknown
/// `Content-Encoding` untouched, chunked framing decoded), no redirect followed, and every way a request
/// can fail mapped to its `TransportError`.
@Suite(.timeLimit(.minutes(10))) struct HTTPClientTransportTests {
    static let coded = Data([0x1F, 0x8B, 0x00, 0xFF, 0x42, 0x0A, 0x00])

    @Test func aBodyWithAnUnknownContentEncodingArrivesByteForByteWithItsFields() async throws {
        try await withTestServer({ router in
            router.get("coded") { _, _ in
                Response(
                    status: .ok, headers: [.contentEncoding: "x-unknown-coding", .eTag: "\"v1\""],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.coded)))
            }
        }) { server in
            let transport = HTTPClientTransport()
            let response = try await transport.send(
                TransportRequest(
                    method: .get, url: server.baseURL.appendingPathComponent("coded"), headerFields: [.acceptEncoding: "x-unknown-coding"]))
            #expect(response.status == 200)
            #expect(response.body == Self.coded)
            #expect(response.headerFields[.contentEncoding] == "x-unknown-coding")
            #expect(response.headerFields[.eTag] == "\"v1\"")
            #expect(server.requests.first?.headerFields[.acceptEncoding] == "x-unknown-coding")
        }
    }

    @Test func aChunkedBodyIsReassembled() async throws {
        try await withTestServer({ router in
            router.get("chunked") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain"],
                    body: ResponseBody { writer in
                        for part in ["one,", "two,", "three"] { try await writer.write(ByteBuffer(string: part)) }
                        try await writer.finish(nil)
                    })
            }
        }) { server in
            let response = try await HTTPClientTransport().send(
                TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("chunked")))
            #expect(response.headerFields[.transferEncoding] == "chunked")
            #expect(String(decoding: response.body, as: UTF8.self) == "one,two,three")
        }
    }

    @Test func aRedirectIsReturnedNotFollowedAndABodyGoesUp() async throws {
        try await withTestServer({ router in
            router.get("start") { _, _ in reply(.found, "", [.location: "/landing"]) }
            router.post("echo") { request, _ in
                let body = try await request.body.collect(upTo: 1 << 20)
                return reply(.created, String(buffer: body))
            }
        }) { server in
            let transport = HTTPClientTransport()
            let redirect = try await transport.send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("start")))
            #expect(redirect.status == 302 && redirect.headerFields[.location] == "/landing")
            #expect(server.count("/landing") == 0)
            let echoed = try await transport.send(
                TransportRequest(
                    method: .post, url: server.baseURL.appendingPathComponent("echo"),
                    headerFields: [.contentType: "application/json", .contentLength: "999"], body: Data(#"{"a":1}"#.utf8)))
            #expect(echoed.status == 201 && String(decoding: echoed.body, as: UTF8.self) == #"{"a":1}"#)
        }
    }

    @Test func noResponseWithinTheTimeoutIsTimedOut() async throws {
        let gate = AsyncStream<Void>.makeStream()
        try await withTestServer({ router in
            router.get("never") { _, _ in
                for await _ in gate.stream {}
                return reply(.ok)
            }
        }) { server in
            await #expect(throws: TransportError.timedOut) {
                try await HTTPClientTransport().send(
                    TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("never"), timeout: .milliseconds(200)))
            }
            gate.continuation.finish()
        }
    }

    @Test func aCancelledRequestEndsAsCancelled() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let arrived = Locked(false)
        try await withTestServer({ router in
            router.get("never") { _, _ in
                arrived.withLock { $0 = true }
                for await _ in gate.stream {}
                return reply(.ok)
            }
        }) { server in
            // Let go before the server stops (it waits for its handlers), and on every way out.
            defer { gate.continuation.finish() }
            let request = Task {
                try await HTTPClientTransport().send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("never")))
            }
            try await waitUntil("the request reached the server") { arrived.withLock { $0 } }
            request.cancel()
            await #expect(throws: TransportError.cancelled) { try await request.value }
        }
    }

    @Test func aConnectionDroppedMidBodyIsConnectionLost() async throws {
        struct Dropped: Error {}
        try await withTestServer({ router in
            router.get("drop") { _, _ in
                Response(
                    status: .ok, headers: [.contentLength: "1000"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(string: "only part of it"))
                        throw Dropped()
                    })
            }
        }) { server in
            do {
                _ = try await HTTPClientTransport().send(TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("drop")))
                Issue.record("a truncated body was returned")
            } catch let error as TransportError {
                guard case .connectionLost = error else {
                    Issue.record("expected connectionLost, got \(error)")
                    return
                }
            }
        }
    }

    @Test func nothingListeningIsOffline() async throws {
        // Port 1 of the loopback: privileged, so nothing a test starts can be listening there (a port freed by
        // a stopped server could be taken again by a test running beside this one).
        let url = try #require(URL(string: "http://127.0.0.1:1/gone"))
        do {
            _ = try await HTTPClientTransport().send(TransportRequest(method: .get, url: url, timeout: .seconds(30)))
            Issue.record("a stopped server answered")
        } catch {
            guard case .offline = error else {
                Issue.record("expected offline, got \(error)")
                return
            }
        }
    }
}
