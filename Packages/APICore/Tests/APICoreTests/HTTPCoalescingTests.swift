import APICoreTestServer
import APICoreTesting
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import APICore
@testable import APICoreREST

/// Concurrent requests share one fetch only when they would get the same response, and an unsafe
/// method invalidates only the URLs it names. Over real HTTP, through `forward` (`mib proxy`'s path).
@Suite(.timeLimit(.minutes(10))) struct HTTPCoalescingTests {
    static func text(_ response: APIResponse<Data>) -> String { String(decoding: response.value, as: UTF8.self) }

    @Test func requestsThatDifferInAHeaderTheResponseVariesOnAreNotMerged() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("lang") { request, _ in
                await gate.wait()
                let language = request.headers[.acceptLanguage] ?? "none"
                return reply(.ok, "hello in \(language)", [.cacheControl: "max-age=60", .vary: "Accept-Language"])
            }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let english = Task { try await fixture.get(server, "/lang", [.acceptLanguage: "en"]) }
            let german = Task { try await fixture.get(server, "/lang", [.acceptLanguage: "de"]) }
            try await waitUntil("both languages reached the origin") { server.count("/lang") == 2 }
            gate.open()
            #expect(Self.text(try await english.value) == "hello in en")
            #expect(Self.text(try await german.value) == "hello in de")
        }
    }

    @Test func aCallersOwnValidatorsOrRangeNeverShareAFetch() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("doc") { request, _ in
                await gate.wait()
                if request.headers[.ifNoneMatch] == "\"v1\"" { return reply(.notModified, "", [.eTag: "\"v1\""]) }
                if request.headers[.range] == "bytes=0-1" {
                    return reply(.partialContent, "fu", [.contentRange: "bytes 0-1/4", .eTag: "\"v1\""])
                }
                return reply(.ok, "full", [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
            }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let conditional = Task { try await fixture.get(server, "/doc", [.ifNoneMatch: "\"v1\""]) }
            let ranged = Task { try await fixture.get(server, "/doc", [.range: "bytes=0-1"]) }
            let plain = Task { try await fixture.get(server, "/doc") }
            try await waitUntil("the three requests reached the origin") { server.count("/doc") == 3 }
            gate.open()
            let full = try await plain.value
            #expect(full.status == 200 && Self.text(full) == "full", "the plain GET got \(full.status) '\(Self.text(full))'")
            #expect(try await conditional.value.status == 304)
            let partial = try await ranged.value
            #expect(partial.status == 206 && Self.text(partial) == "fu")
            // Later: the plain GET is answered from the cache, never with the partial or the 304.
            let cached = try await fixture.get(server, "/doc")
            #expect(cached.source == .cache && Self.text(cached) == "full")
            // A Range request never gets another request's partial response.
            let rangedAgain = try await fixture.get(server, "/doc", [.range: "bytes=0-1"])
            let text = Self.text(rangedAgain)
            #expect(
                (rangedAgain.status == 200 && text == "full") || (rangedAgain.status == 206 && text == "fu"),
                "a Range request got \(rangedAgain.status) '\(text)'")
        }
    }

    @Test func twoHundredIdenticalRequestsReachTheOriginOnce() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("same") { _, _ in
                await gate.wait()
                return reply(.ok, "shared", [.cacheControl: "max-age=60"])
            }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let fields: HTTPFields = [.acceptLanguage: "en", .userAgent: "probe"]
            let callers = (0..<200).map { index in
                Task {
                    var mine = fields
                    mine[.userAgent] = "probe-\(index)"  // not a field a response varies on
                    return try await fixture.get(server, "/same", mine)
                }
            }
            try await waitUntil("200 callers sharing one fetch") { fixture.client.inFlight.waiterCount == 200 }
            gate.open()
            for caller in callers { #expect(Self.text(try await caller.value) == "shared") }
            #expect(server.count("/same") == 1)
        }
    }

    /// A cookie answers the one request it was issued to: a request that joined another's fetch (through
    /// `mib proxy`, maybe another caller without credentials) gets the response without its `Set-Cookie`.
    @Test func aRequestThatJoinedAnothersFetchNeverGetsItsCookie() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("greet") { _, _ in
                await gate.wait()
                return reply(.ok, "hello", [.cacheControl: "max-age=60", .setCookie: "sid=first"])
            }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let callers = (0..<2).map { _ in Task { try await fixture.get(server, "/greet") } }
            try await waitUntil("2 callers sharing one fetch") { fixture.client.inFlight.waiterCount == 2 }
            gate.open()
            var cookies: [String] = []
            for caller in callers {
                let response = try await caller.value
                #expect(Self.text(response) == "hello")
                cookies += response.headerFields[values: .setCookie]
            }
            #expect(server.count("/greet") == 1)
            #expect(cookies == ["sid=first"], "the cookie reached \(cookies.count) callers of one fetch")
        }
    }

    @Test func anUnsafeMethodInvalidatesOnlyTheURLsItNames() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("a") { request, _ in
                if request.uri.query == "slow" { await gate.wait() }
                return reply(.ok, "a", [.cacheControl: "max-age=60"])
            }
            router.get("c") { _, _ in reply(.ok, "c", [.cacheControl: "max-age=60"]) }
            router.post("b") { _, _ in reply(.noContent) }
            router.post("moves-c") { _, _ in reply(.created, "", [.location: "/c"]) }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let base = server.baseURL.absoluteString
            func post(_ path: String) async throws {
                _ = try await fixture.client.forward(method: .post, url: base + path, headerFields: [:], body: Data())
            }
            // A slow GET of /a?slow while a POST to /b succeeds: /a?slow is still stored.
            let slow = Task { try await fixture.get(server, "/a?slow") }
            try await waitUntil("the slow GET reached the origin") { server.count("/a") == 1 }
            try await post("/b")
            gate.open()
            _ = try await slow.value
            #expect(try await fixture.get(server, "/a?slow").source == .cache, "a POST to /b kept /a from being stored")
            // A POST whose Location names /c (same origin) invalidates /c, and only it.
            _ = try await fixture.get(server, "/c")
            try await post("/moves-c")
            #expect(try await fixture.get(server, "/c").source == .network)
            #expect(try await fixture.get(server, "/a?slow").source == .cache)
        }
    }

    @Test func aFetchOfAnInvalidatedURLThatStartedBeforeIsNotStored() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("a") { _, _ in
                await gate.wait()
                return reply(.ok, "a", [.cacheControl: "max-age=60"])
            }
            router.post("a") { _, _ in reply(.noContent) }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let slow = Task { try await fixture.get(server, "/a") }
            try await waitUntil("the slow GET reached the origin") { server.count("/a") == 1 }
            _ = try await fixture.client.forward(method: .post, url: server.baseURL.absoluteString + "/a", headerFields: [:], body: Data())
            gate.open()
            _ = try await slow.value
            #expect(try await fixture.get(server, "/a").source == .network)
        }
    }
}
