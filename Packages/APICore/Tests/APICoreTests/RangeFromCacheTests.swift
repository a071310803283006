import APICore
import APICoreREST
import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// A `Range` request through `forward` (what `mib proxy` uses) is answered from a fresh stored complete
/// response (RFC 9110 §14): a 206 with its `Content-Range`, and no request to the origin.
@Suite(.timeLimit(.minutes(10))) struct RangeFromCacheTests {
    static let body = "0123456789"

    func withFile(_ body: (ClientFixture, TestServer, String) async throws -> Void) async throws {
        try await withTestServer({ router in
            router.get("file") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300", .contentType: "text/plain"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let url = server.baseURL.appendingPathComponent("file").absoluteString
            _ = try await fixture.client.forward(method: .get, url: url, headerFields: [:], body: nil)
            try await body(fixture, server, url)
        }
    }

    @Test(arguments: [
        ("bytes=2-4", "234", "bytes 2-4/10"), ("bytes=7-", "789", "bytes 7-9/10"), ("bytes=-3", "789", "bytes 7-9/10"),
        ("bytes=8-100", "89", "bytes 8-9/10"), ("bytes=-50", "0123456789", "bytes 0-9/10"),
    ])
    func aSingleRangeIsA206FromTheCache(_ range: String, _ expected: String, _ contentRange: String) async throws {
        try await withFile { fixture, server, url in
            let response = try await fixture.client.forward(method: .get, url: url, headerFields: [.range: range], body: nil)
            #expect(response.status == 206)
            #expect(String(decoding: response.value, as: UTF8.self) == expected)
            #expect(response.headerFields[.contentRange] == contentRange)
            #expect(response.headerFields[.contentLength] == String(expected.utf8.count))
            #expect(response.source == .cache)
            #expect(server.count("/file") == 1, "the origin saw only the first, complete request")
        }
    }

    @Test func severalRangesGetTheWholeResponseFromTheCache() async throws {
        try await withFile { fixture, server, url in
            let response = try await fixture.client.forward(method: .get, url: url, headerFields: [.range: "bytes=0-1,4-5"], body: nil)
            #expect(response.status == 200 && String(decoding: response.value, as: UTF8.self) == Self.body)
            #expect(server.count("/file") == 1)
        }
    }

    @Test func aRangePastTheEndOrAConditionalOneGetsTheWholeStoredResponse() async throws {
        try await withFile { fixture, server, url in
            for fields: HTTPFields in [[.range: "bytes=20-30"], [.range: "bytes=0-1", .ifRange: "\"v1\""]] {
                let response = try await fixture.client.forward(method: .get, url: url, headerFields: fields, body: nil)
                #expect(response.status == 200, "the Range is ignored (RFC 9110 §14.2), never a wrong part")
                #expect(String(decoding: response.value, as: UTF8.self) == Self.body)
                #expect(response.headerFields[.contentRange] == nil)
            }
            #expect(server.count("/file") == 1)
        }
    }

    @Test func nothingStoredMeansTheOriginAnswersTheRange() async throws {
        try await withTestServer({ router in
            router.get("file") { _, _ in reply(.ok, Self.body, [.cacheControl: "max-age=300"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let url = server.baseURL.appendingPathComponent("file").absoluteString
            _ = try await fixture.client.forward(method: .get, url: url, headerFields: [.range: "bytes=0-1"], body: nil)
            #expect(server.count("/file") == 1)
            #expect(server.requests.last?.headerFields[.range] == "bytes=0-1")
        }
    }
}
