import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import APICore
@testable import APICoreREST

/// A switch a test flips and a route reads.
final class Flag: Sendable {
    private let value = Locked(false)
    var isOn: Bool { value.withLock { $0 } }
    func turnOn() { value.withLock { $0 = true } }
}

/// What RFC 9111 and RFC 5861 let a private cache store and reuse, over real HTTP.
@Suite(.timeLimit(.minutes(10))) struct HTTPDirectiveTests {
    @Test func anyFinalStatusWithExplicitFreshnessIsStoredAndAKitStillGetsItsTypedError() async throws {
        try await withTestServer({ router in
            router.get("gone") { _, _ in
                reply(
                    .notFound, #"{"success":false,"error":{"code":"NOT_FOUND","message":"no"}}"#,
                    [.cacheControl: "max-age=100000"])
            }
            router.get("broken") { _, _ in reply(.internalServerError, "oops", [.cacheControl: "max-age=100000"]) }
            router.get("redirect") { _, _ in reply(.movedPermanently, "", [.location: "/elsewhere"]) }
            router.get("partial") { _, _ in
                reply(.partialContent, "ab", [.cacheControl: "max-age=100000", .contentRange: "bytes 0-1/10"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL, transport: URLSessionTransport(followsRedirects: false))
            for path in ["/gone", "/broken"] {
                _ = try await fixture.get(server, path)
                let again = try await fixture.get(server, path)
                #expect(again.source == .cache, "\(path) was not stored")
                #expect(server.count(path) == 1)
            }
            // A kit's typed request receives the stored 404 as the error the network gave.
            await #expect(throws: APIError.server(ServerError(status: 404, code: "NOT_FOUND", message: "no"))) {
                try await fixture.client.send(.item("/gone"))
            }
            #expect(server.count("/gone") == 1)
            // A 301 is heuristically cacheable but has neither freshness nor validators here: not stored.
            _ = try await fixture.get(server, "/redirect")
            #expect(try await fixture.get(server, "/redirect").source == .network)
            // 206 is never stored (ranges are not combined).
            _ = try await fixture.get(server, "/partial")
            #expect(try await fixture.get(server, "/partial").source == .network)
        }
    }

    @Test func requestDirectivesNoCacheMaxAgeMinFreshMaxStaleAndOnlyIfCached() async throws {
        try await withTestServer({ router in
            router.get("doc") { request, _ in
                if request.headers[.ifNoneMatch] == "\"v1\"" {
                    return reply(.notModified, "", [.eTag: "\"v1\"", .cacheControl: "max-age=100"])
                }
                return reply(.ok, "doc", [.eTag: "\"v1\"", .cacheControl: "max-age=100"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            await #expect(throws: APIError.notCached()) { try await fixture.get(server, "/doc", [.cacheControl: "only-if-cached"]) }
            _ = try await fixture.get(server, "/doc")
            #expect(try await fixture.get(server, "/doc", [.cacheControl: "only-if-cached"]).source == .cache)
            // no-cache and max-age=0 revalidate with the stored validators: the origin can answer 304.
            for directive in ["no-cache", "max-age=0"] {
                let response = try await fixture.get(server, "/doc", [.cacheControl: directive])
                #expect(response.source == .revalidated, "\(directive)")
                #expect(server.requests.last?.headerFields[.ifNoneMatch] == "\"v1\"", "\(directive)")
            }
            fixture.clock.advance(by: 50)
            // 50 s old, 50 s left: min-fresh=60 asks the origin, max-age=30 too, max-age=60 does not.
            #expect(try await fixture.get(server, "/doc", [.cacheControl: "min-fresh=60"]).source == .revalidated)
            fixture.clock.advance(by: 50)
            #expect(try await fixture.get(server, "/doc", [.cacheControl: "max-age=30"]).source == .revalidated)
            fixture.clock.advance(by: 50)
            #expect(try await fixture.get(server, "/doc", [.cacheControl: "max-age=60"]).source == .cache)
            // 150 s after the last revalidation: stale by 50 s; max-stale=60 accepts it, max-stale=10 does not.
            fixture.clock.advance(by: 100)
            let accepted = try await fixture.get(server, "/doc", [.cacheControl: "max-stale=60"])
            #expect(accepted.source == .cache && accepted.isStale)
            #expect(try await fixture.get(server, "/doc", [.cacheControl: "max-stale=10"]).source == .revalidated)
        }
    }

    @Test func staleWhileRevalidateAndStaleIfError() async throws {
        let failing = Flag()
        try await withTestServer({ router in
            router.get("swr") { _, _ in reply(.ok, "swr", [.cacheControl: "max-age=10, stale-while-revalidate=60"]) }
            router.get("sie") { _, _ in
                if failing.isOn { return reply(.serviceUnavailable, "down") }
                return reply(.ok, "sie", [.cacheControl: "max-age=10, stale-if-error=60"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.get(server, "/swr")
            fixture.clock.advance(by: 30)
            let swr = try await fixture.get(server, "/swr")
            #expect(swr.source == .cache && swr.isStale, "within stale-while-revalidate: served stale at once")
            try await waitUntil("the background revalidation") { server.count("/swr") == 2 }
            fixture.clock.advance(by: 100)
            #expect(try await fixture.get(server, "/swr").source == .network, "past the window: fetched")

            _ = try await fixture.get(server, "/sie")
            failing.turnOn()
            fixture.clock.advance(by: 30)
            let sie = try await fixture.get(server, "/sie")
            #expect(sie.status == 200 && sie.isStale, "a 503 within stale-if-error is answered with the stale response")
            fixture.clock.advance(by: 100)
            #expect(try await fixture.get(server, "/sie").status == 503, "past stale-if-error: the 503")
        }
    }
}

/// A 304 makes the stored response as young as the 304.
@Suite(.timeLimit(.minutes(10))) struct RevalidationAgeTests {
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test(arguments: ["Age", "Date"]) func aNotModifiedWithoutAgeOrDateRestartsTheAge(_ field: String) async throws {
        let transport = RecordingTransport()
        let fixture = try ClientFixture(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
        var first: HTTPFields = [.eTag: "\"v1\"", .cacheControl: "max-age=60"]
        // Either an upstream cache's Age of 50 s, or a Date 50 s before the response arrived.
        if field == "Age" { first[.age] = "50" } else { first[.date] = Self.httpDate(fixture.clock.now().addingTimeInterval(-50)) }
        transport.stub(.get, "/doc", status: 200, headerFields: first, body: Data(#"{"id":1,"name":"doc"}"#.utf8))
        transport.stub(.get, "/doc", status: 304, headerFields: [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
        _ = try await fixture.client.send(.item("/doc"))
        fixture.clock.advance(by: 30)
        #expect(try await fixture.client.send(.item("/doc")).source == .revalidated)
        fixture.clock.advance(by: 20)
        // 20 s after the 304: fresh. Had the old Age or Date been kept, it would be 70 s old.
        let hit = try await fixture.client.send(.item("/doc"))
        #expect(hit.source == .cache, "the revalidated response still carries the old \(field)")
        #expect(hit.headerFields[.age] == "20")
        #expect(transport.requests.count == 2)
    }
}
