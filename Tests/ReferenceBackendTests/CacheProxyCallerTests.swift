import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIBCore
import NIOCore
import ReferenceBackend
import Testing

/// Who `mib proxy` takes a caller to be, over real HTTP (a client → the proxy → an origin, all on
/// 127.0.0.1): credentials split callers, nothing else does, and a cookie never reaches another caller.
@Suite(.timeLimit(.minutes(10))) struct CacheProxyCallerTests {
    typealias Fixture = CacheProxyTests.Fixture

    /// An origin counting its requests: `/count` answers `max-age=600` with the request's number;
    /// `/session` gives each request its own cookie (`sid=<number>`) with `private, max-age=600` and an
    /// `ETag`, and answers a matching `If-None-Match` with a 304 that carries a new cookie too.
    static func startOrigin() async throws -> LocalServer {
        let counter = Locked(0)
        let router = Router()
        router.get("count") { _, _ -> Response in
            let number = counter.withLock {
                $0 += 1
                return $0
            }
            return Response(
                status: .ok, headers: [.cacheControl: "max-age=600", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "response \(number)")))
        }
        router.get("session") { request, _ -> Response in
            let number = counter.withLock {
                $0 += 1
                return $0
            }
            var headers: HTTPFields = [
                .cacheControl: "private, max-age=600", .eTag: "\"v1\"", .setCookie: "sid=\(number); HttpOnly",
                HTTPField.Name("Set-Cookie2")!: "legacy=\(number)",
            ]
            if request.headers[.ifNoneMatch] == "\"v1\"" { return Response(status: .notModified, headers: headers) }
            headers[.contentType] = "text/plain"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "page")))
        }
        var logger = Logger(label: "origin")
        logger.logLevel = .warning
        return try await LocalServer.start(responder: router.buildResponder(), port: 0, logger: logger)
    }

    /// Runs `body` with a proxy in front of the counting origin, stopping both however it ends.
    static func withProxy(
        callerFields: Set<String> = [], _ body: (Fixture, LocalServer) async throws -> Void
    ) async throws {
        try await Fixture.run(origin: try await startOrigin(), callerFields: callerFields, body)
    }

    /// Fields real clients send with a new value on every request: tracing, request ids, counters, a
    /// test's name. None of them is a caller.
    static let perRequestFields = [
        "sentry-trace", "baggage", "X-Amzn-Trace-Id", "X-B3-TraceId", "X-B3-SpanId", "traceparent",
        "X-Cloud-Trace-Context", "X-Client-Request-Id", "X-Request-Id", "X-Correlation-Id", "Request-Num",
        "Test-Name", "X-Counter", "Idempotency-Key", "X-Idempotency-Key", "X-Forwarded-Uri", "Req-Num", "Test-ID",
    ]

    /// Random field names that carry no credential word: built from consonants that spell none of them
    /// (every credential word has a vowel, `jwt` aside, whose letters are left out too).
    static func randomNames(count: Int, seed: UInt64) -> [String] {
        var generator = SeededRandom(seed: seed)
        let letters = Array("bcdfghlmnpqrvxz")
        return (0..<count).map { _ in
            "X-" + String((0..<Int.random(in: 3...12, using: &generator)).map { _ in letters.randomElement(using: &generator) ?? "b" })
        }
    }

    /// The regression the public RFC 9111 suite found (18 of 137): a request sent twice with another
    /// value of a per-request field each time is a hit the second time.
    @Test(arguments: [UInt64(1), 2, 3])
    func aPerRequestFieldNeverSplitsCallers(seed: UInt64) async throws {
        try await Self.withProxy { fixture, _ in
            let names = Self.perRequestFields + Self.randomNames(count: 10, seed: seed)
            for (index, name) in names.enumerated() {
                let field = try #require(HTTPField.Name(name))
                let path = "/count?field=\(index)"
                let first = try await fixture.get(path, [field: "first-\(UInt64.random(in: 0...UInt64.max))"])
                let second = try await fixture.get(path, [field: "second-\(UInt64.random(in: 0...UInt64.max))"])
                #expect(first.headerFields[ProxyHeader.xCache] == "MISS", "\(name)")
                #expect(second.headerFields[ProxyHeader.xCache] == "HIT", "\(name) split one caller in two")
                #expect(second.body == first.body, "\(name)")
            }
            #expect(fixture.upstream.count() == names.count)
        }
    }

    /// Each form of credential, and a field named with `--caller-field`: two callers differing in it
    /// never share a response, and each still has its own hits.
    @Test func callersWithDifferentCredentialsNeverShare() async throws {
        let identifying: [(name: String, alice: String, bob: String)] = [
            ("Authorization", "Bearer alice", "Bearer bob"),
            ("Proxy-Authorization", "Basic YWxpY2U6eA==", "Basic Ym9iOng="),
            ("Cookie", "sid=alice", "sid=bob"),
            ("X-Forwarded-User", "alice", "bob"),
            ("X-Forwarded-Email", "alice@example.com", "bob@example.com"),
            ("X-Forwarded-Client-Cert", "Hash=aaaa;Subject=\"CN=alice\"", "Hash=bbbb;Subject=\"CN=bob\""),
            ("Forwarded", "for=192.0.2.1;proto=https", "for=192.0.2.2;proto=https"),
            ("X-Forwarded-For", "192.0.2.1", "192.0.2.2"),
            ("PRIVATE-TOKEN", "glpat-alice", "glpat-bob"),
            ("X-Goog-Api-Key", "AIzaAlice", "AIzaBob"),
            ("X-Auth-Token", "alice-token", "bob-token"),
            ("Api-Key", "alice-key", "bob-key"),
            ("X_API_KEY", "alice-key", "bob-key"),
            ("X-Session-Id", "alice-session", "bob-session"),
            ("X-Amz-Security-Token", "alice-sts", "bob-sts"),
            ("X-Hub-Signature", "sha1=alice", "sha1=bob"),
            ("X-Tenant", "alice-corp", "bob-corp"),
            ("X_Forwarded_User", "alice", "bob"),
            ("Tailscale-User-Login", "alice@example.com", "bob@example.com"),
            ("X-Ms-Client-Principal-Name", "alice", "bob"),
            ("X-Real-IP", "192.0.2.1", "192.0.2.2"),
        ]
        // Named as a user would type it, in any case.
        try await Self.withProxy(callerFields: ["X-TENANT"]) { fixture, _ in
            for (index, entry) in identifying.enumerated() {
                let field = try #require(HTTPField.Name(entry.name))
                let path = "/count?form=\(index)"
                let alice = try await fixture.get(path, [field: entry.alice])
                let bob = try await fixture.get(path, [field: entry.bob])
                #expect(bob.body != alice.body, "\(entry.name): bob received alice's response")
                #expect(
                    bob.headerFields[ProxyHeader.xCache] == "MISS; new caller (\(field.canonicalName))",
                    "\(entry.name): \(bob.headerFields[ProxyHeader.xCache] ?? "no X-Cache")")
                let anonymous = try await fixture.get(path)
                #expect(anonymous.body != alice.body && anonymous.body != bob.body, "\(entry.name): the anonymous caller shared")
                let aliceAgain = try await fixture.get(path, [field: entry.alice])
                let bobAgain = try await fixture.get(path, [field: entry.bob])
                #expect(aliceAgain.body == alice.body && bobAgain.body == bob.body, "\(entry.name): a caller lost its own hit")
            }
            // Only the client named in `Forwarded` identifies: the route's parameters do not.
            let https = try await fixture.get("/count?forwarded", [HTTPField.Name("Forwarded")!: "for=192.0.2.9;proto=https"])
            let http = try await fixture.get("/count?forwarded", [HTTPField.Name("Forwarded")!: "for=192.0.2.9;proto=http"])
            #expect(http.headerFields[ProxyHeader.xCache] == "HIT" && http.body == https.body)
        }
    }

    /// Security review three: an upstream that gives each cookie-less request its own session cookie
    /// never has one caller's cookie handed to another, fresh, after a 304, or stale.
    @Test func anAnonymousCallerNeverReceivesAnothersCookie() async throws {
        try await Self.withProxy { fixture, origin in
            let alice = try await fixture.get("/session")
            #expect(alice.headerFields[ProxyHeader.xCache] == "MISS")
            #expect(alice.headerFields[values: .setCookie] == ["sid=1; HttpOnly"])

            let bob = try await fixture.get("/session")
            #expect(bob.headerFields[ProxyHeader.xCache] == "HIT")
            #expect(bob.body == alice.body)
            #expect(bob.headerFields[values: .setCookie] == [], "a hit handed over alice's cookie")
            #expect(bob.headerFields[HTTPField.Name("Set-Cookie2")!] == nil, "a hit handed over alice's Set-Cookie2")

            // Stale: revalidated with a 304 that issues a cookie of its own, which reaches its caller alone.
            fixture.clock.advance(by: 601)
            let carol = try await fixture.get("/session")
            #expect(carol.headerFields[ProxyHeader.xCache] == "REVALIDATED")
            #expect(carol.headerFields[values: .setCookie] == ["sid=2; HttpOnly"], "the 304's own cookie")
            let dave = try await fixture.get("/session")
            #expect(dave.headerFields[ProxyHeader.xCache] == "HIT")
            #expect(dave.headerFields[values: .setCookie] == [], "a hit after a 304 handed over a cookie")

            // Served stale while the origin is down: still no cookie.
            await origin.stop()
            fixture.clock.advance(by: 601)
            let erin = try await fixture.get("/session")
            #expect(erin.headerFields[ProxyHeader.xCache] == "STALE")
            #expect(erin.headerFields[values: .setCookie] == [], "a stale response handed over a cookie")
        }
    }

    /// When the request's own directive sent it to the origin, `X-Cache` says so.
    @Test func aMissCausedByTheRequestSaysWhy() async throws {
        try await Self.withProxy { fixture, _ in
            let miss = try await fixture.get("/count")
            let hit = try await fixture.get("/count")
            #expect(miss.headerFields[ProxyHeader.xCache] == "MISS" && hit.headerFields[ProxyHeader.xCache] == "HIT")
            let cases: [(HTTPFields, String)] = [
                ([.cacheControl: "no-cache"], "MISS; request no-cache"),
                ([.cacheControl: "no-store"], "MISS; request no-store"),
                ([.cacheControl: "max-age=0"], "MISS; request max-age=0"),
                ([HTTPField.Name("Pragma")!: "no-cache"], "MISS; request Pragma: no-cache"),
            ]
            for (fields, expected) in cases {
                fixture.clock.advance(by: 1)  // the stored response is a second old: `max-age=0` refuses it
                let response = try await fixture.get("/count", fields)
                #expect(response.headerFields[ProxyHeader.xCache] == expected)
            }
        }
    }
}
