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

/// `mib proxy` over real HTTP: a client → the proxy → an origin, all on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct CacheProxyTests {
    /// A proxy in front of `upstream`, on a manual clock, counting what reaches the origin.
    struct Fixture {
        let proxy: CacheProxy
        let clock: ManualClock
        let upstream: CountingTransport
        let client = URLSessionTransport(followsRedirects: false)

        static func start(upstream: URL, callerFields: Set<String> = []) async throws -> Fixture {
            // Ten seconds behind the origin's `Date` (which a server may stamp from a cache up to a second
            // old, and later under load): a response's apparent age is then always zero, so the ages the
            // tests read are exactly the time the clock was moved (one TSan run read 121 for 120 before).
            let clock = ManualClock(now: Date().addingTimeInterval(-10))
            var logger = Logger(label: "proxy")
            logger.logLevel = .warning
            let counting = CountingTransport(ToolTransport.make())
            let proxy = try await CacheProxy.start(
                .init(
                    upstream: upstream, environment: CacheEnvironment(clock: clock, logger: logger), transport: counting,
                    callerFields: callerFields))
            return Fixture(proxy: proxy, clock: clock, upstream: counting)
        }

        /// Runs `body` with a proxy in front of `origin`, stopping both however it ends.
        static func run(
            origin: LocalServer, callerFields: Set<String> = [], _ body: (Fixture, LocalServer) async throws -> Void
        ) async throws {
            let fixture: Fixture
            do {
                fixture = try await start(upstream: origin.baseURL, callerFields: callerFields)
            } catch {
                await origin.stop()
                throw error
            }
            do {
                try await body(fixture, origin)
            } catch {
                await fixture.proxy.stop()
                await origin.stop()
                throw error
            }
            await fixture.proxy.stop()
            await origin.stop()
        }

        func get(_ path: String, _ fields: HTTPFields = [:]) async throws -> TransportResponse {
            try await send(.get, path, fields)
        }

        func send(
            _ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:],
            body: String? = nil
        ) async throws -> TransportResponse {
            let url = try #require(URL(string: proxy.baseURL.absoluteString + path))
            return try await client.send(
                TransportRequest(
                    method: method, url: url, headerFields: fields,
                    body: body.map { Data($0.utf8) }, timeout: TestDeadline.request))
        }
    }

    /// Security review, finding 10: callers identified by a cookie or an API key, not `Authorization`,
    /// never receive each other's responses, and the number of callers' caches is bounded.
    /// The attacker's list of fields that identify a caller, not the product's: GitLab's and Google's API
    /// keys, and the user an authenticating proxy in front names.
    static let identifying: [HTTPField.Name] = [
        .cookie, HTTPField.Name("X-API-Key")!, HTTPField.Name("PRIVATE-TOKEN")!, HTTPField.Name("X-Goog-Api-Key")!,
        HTTPField.Name("X-Forwarded-User")!,
    ]

    @Test func callersToldApartByACookieOrAnAPIKeyNeverShareAResponse() async throws {
        let router = Router()
        router.get("mine") { request, _ -> Response in
            let who = Self.identifying.lazy.compactMap { request.headers[$0] }.first ?? "nobody"
            return Response(
                status: .ok, headers: [.cacheControl: "private, max-age=600", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "data of \(who)")))
        }
        let origin = try await LocalServer.start(responder: router.buildResponder(), port: 0, logger: Logger(label: "origin"))
        try await Fixture.run(origin: origin) { fixture, _ in
            for field in Self.identifying {
                let alice = try await fixture.get("/mine", [field: "alice-\(field)"])
                #expect(String(decoding: alice.body, as: UTF8.self) == "data of alice-\(field)")
                let bob = try await fixture.get("/mine", [field: "bob-\(field)"])
                #expect(String(decoding: bob.body, as: UTF8.self) == "data of bob-\(field)")
                #expect(bob.headerFields[ProxyHeader.xCache] == "MISS; new caller (\(field.canonicalName))")
                let aliceAgain = try await fixture.get("/mine", [field: "alice-\(field)"])
                #expect(aliceAgain.headerFields[ProxyHeader.xCache] == "HIT")
            }
            // Past the bound, the least recently used caller's cache is gone: its next request is a miss.
            let first = try await fixture.get("/mine", [.cookie: "caller-0"])
            #expect(first.headerFields[ProxyHeader.xCache] == "MISS; new caller (cookie)")
            for index in 1...CacheProxy.maximumCallers { _ = try await fixture.get("/mine", [.cookie: "caller-\(index)"]) }
            let evicted = try await fixture.get("/mine", [.cookie: "caller-0"])
            #expect(evicted.headerFields[ProxyHeader.xCache] == "MISS; new caller (cookie)")
        }
    }

    /// Security review two, finding 2: a page that rebinds its domain to 127.0.0.1, or sends a cross-site
    /// request, reads nothing through the proxy and plants nothing in its caches; the backend's admin
    /// routes stay out of its reach through the proxy as they are directly.
    @Test func aReboundOrCrossSiteRequestIsRefusedBeforeTheUpstream() async throws {
        try await withBackend(6) { backend in
            let fixture = try await Fixture.start(upstream: backend.backend.baseURL)
            do {
                let port = fixture.proxy.baseURL.port ?? 0
                for forged: HTTPFields in [
                    [HTTPField.Name("Host")!: "rebind.attacker.example"],
                    [HTTPField.Name("Host")!: "rebind.attacker.example:\(port)"],
                    // Look-alikes of the loopback names: only the exact names pass.
                    [HTTPField.Name("Host")!: "localhost.attacker.example:\(port)"],
                    [HTTPField.Name("Host")!: "127.0.0.1.attacker.example"],
                    [HTTPField.Name("Host")!: "evil-localhost:\(port)"],
                    [.origin: "http://localhost.attacker.example:\(port)"],
                    [.origin: "https://attacker.example"],
                    [.origin: "null"],
                    [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"],
                ] {
                    let response = try await fixture.get("/admin/faults", forged)
                    #expect(response.status == 403, "\(forged)")
                    let catalog = try await fixture.get("/api/funnels/catalog", forged)
                    #expect(catalog.status == 403, "\(forged)")
                }
                #expect(fixture.upstream.count() == 0, "the upstream received \(fixture.upstream.count()) requests")
                // The proxy's own page and tools that are no browser pass.
                let own = try await fixture.get("/api/funnels/catalog", [.origin: "http://127.0.0.1:\(port)"])
                #expect(own.status == 200)
                #expect(try await fixture.get("/api/funnels/catalog", [HTTPField.Name("Host")!: "localhost:\(port)"]).status == 200)
            } catch {
                await fixture.proxy.stop()
                throw error
            }
            await fixture.proxy.stop()
        }
    }

    /// An origin that echoes what it received, redirects `/old`, and answers with validators.
    static func startOrigin() async throws -> LocalServer {
        let router = Router()
        router.get("echo") { request, _ -> Response in
            let echo: [String: String] = [
                "authorization": request.headers[.authorization] ?? "",
                "custom": request.headers[HTTPField.Name("X-Custom") ?? .accept] ?? "",
                "proxyAuthorization": request.headers[.proxyAuthorization] ?? "",
                "query": request.uri.query ?? "",
            ]
            let body = try JSONEncoder().encode(echo)
            var headers: HTTPFields = [
                .cacheControl: "private, max-age=60", .eTag: "\"echo-1\"",
                .contentType: "application/json",
            ]
            if request.headers[.ifNoneMatch] == "\"echo-1\"" {
                headers[.contentType] = nil
                return Response(status: .notModified, headers: headers)
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("old") { _, _ in Response(status: .found, headers: [.location: "/new"]) }
        router.get("new") { _, _ in "new" }
        var logger = Logger(label: "origin")
        logger.logLevel = .warning
        return try await LocalServer.start(responder: router.buildResponder(), port: 0, logger: logger)
    }

    struct Echo: Decodable {
        var authorization: String
        var custom: String
        var proxyAuthorization: String
        var query: String
    }

    @Test func theOriginsDateIsForwardedOnAMissAndAHit() async throws {
        let originDate = HTTPDateFormat.string(Date().addingTimeInterval(-3))
        let router = Router()
        router.get("dated") { _, _ in
            Response(
                status: .ok, headers: [.date: originDate, .cacheControl: "max-age=600"],
                body: .init(byteBuffer: ByteBuffer(string: "dated")))
        }
        var logger = Logger(label: "origin")
        logger.logLevel = .warning
        let origin = try await LocalServer.start(
            responder: router.buildResponder(), port: 0, keepsResponseDate: true,
            logger: logger)
        let fixture = try await Fixture.start(upstream: origin.baseURL)
        let miss = try await fixture.get("/dated")
        let hit = try await fixture.get("/dated")
        #expect(miss.headerFields[ProxyHeader.xCache] == "MISS" && hit.headerFields[ProxyHeader.xCache] == "HIT")
        #expect(miss.headerFields[.date] == originDate, "the proxy replaced the origin's Date on a miss")
        #expect(hit.headerFields[.date] == originDate, "the proxy replaced the origin's Date on a hit")
        await fixture.proxy.stop()
        await origin.stop()
    }

    @Test func catalogIsMissThenHitWithAgeThenRevalidatedWith304() async throws {
        try await withBackend { backend in
            let fixture = try await Fixture.start(upstream: backend.backend.baseURL)
            defer { Task { await fixture.proxy.stop() } }
            let first = try await fixture.get("/api/funnels/catalog?limit=5")
            #expect(first.status == 200)
            #expect(first.headerFields[ProxyHeader.xCache] == "MISS")
            #expect(first.headerFields[.eTag] != nil)

            fixture.clock.advance(by: 42)
            let second = try await fixture.get("/api/funnels/catalog?limit=5")
            #expect(second.headerFields[ProxyHeader.xCache] == "HIT")
            #expect(second.headerFields[.age] == "42")
            #expect(second.body == first.body)
            #expect(fixture.upstream.count() == 1)

            fixture.clock.advance(by: 300)
            let third = try await fixture.get("/api/funnels/catalog?limit=5")
            #expect(third.status == 200)
            #expect(third.headerFields[ProxyHeader.xCache] == "REVALIDATED")
            #expect(third.body == first.body)
            #expect(fixture.upstream.count() == 2)

            let otherQuery = try await fixture.get("/api/funnels/catalog?limit=6")
            #expect(otherQuery.headerFields[ProxyHeader.xCache] == "MISS")
        }
    }

    @Test func methodsBodiesAndErrorStatusesPassThrough() async throws {
        try await withBackend { backend in
            let fixture = try await Fixture.start(upstream: backend.backend.baseURL)
            defer { Task { await fixture.proxy.stop() } }
            let login = try await fixture.send(
                .post, "/auth/login", [.contentType: "application/json"],
                body: #"{"email":"alice@example.com","password":"Password1"}"#)
            #expect(login.status == 200)
            #expect(String(decoding: login.body, as: UTF8.self).contains("token"))

            let refused = try await fixture.send(
                .post, "/auth/login", [.contentType: "application/json"],
                body: #"{"email":"alice@example.com","password":"Wrong1234"}"#)
            #expect(refused.status == 401)
            #expect(refused.headerFields[ProxyHeader.xCache] == "MISS")
            #expect(!refused.body.isEmpty)

            let missing = try await fixture.get("/api/funnels/catalog/no-such-funnel")
            #expect(missing.status == 404)
            #expect(String(decoding: missing.body, as: UTF8.self).contains("error"))

            let badCursor = try await fixture.get("/api/funnels/catalog?cursor=%%%")
            #expect(badCursor.status == 400)
        }
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await Fixture.start(upstream: origin.baseURL)
        let response = try await fixture.get("/old")
        #expect(response.status == 302)
        #expect(response.headerFields[.location] == "/new")
        #expect(fixture.upstream.count("/new") == 0)
        await fixture.proxy.stop()
        await origin.stop()
    }

    @Test func fieldsAndQueryGoUpstreamWithoutHopByHopOnes() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await Fixture.start(upstream: origin.baseURL)
        let fields: HTTPFields = [HTTPField.Name("X-Custom") ?? .accept: "kept", .proxyAuthorization: "Basic c2VjcmV0"]
        let response = try await fixture.get("/echo?a=1&b=two", fields)
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.custom == "kept")
        #expect(echo.proxyAuthorization == "")
        #expect(echo.query == "a=1&b=two")
        await fixture.proxy.stop()
        await origin.stop()
    }

    @Test func eachAuthorizationHasItsOwnCache() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await Fixture.start(upstream: origin.baseURL)
        let alice = try await fixture.get("/echo", [.authorization: "Bearer alice"])
        let aliceAgain = try await fixture.get("/echo", [.authorization: "Bearer alice"])
        let bob = try await fixture.get("/echo", [.authorization: "Bearer bob"])
        #expect(aliceAgain.headerFields[ProxyHeader.xCache] == "HIT")
        #expect(bob.headerFields[ProxyHeader.xCache] == "MISS; new caller (authorization)")
        #expect(try JSONDecoder().decode(Echo.self, from: alice.body).authorization == "Bearer alice")
        #expect(try JSONDecoder().decode(Echo.self, from: bob.body).authorization == "Bearer bob")
        await fixture.proxy.stop()
        await origin.stop()
    }

    @Test func staleWhenTheOriginIsDownAndRequestDirectivesAreHonoured() async throws {
        let origin = try await Self.startOrigin()
        let fixture = try await Fixture.start(upstream: origin.baseURL)
        let uncached = try await fixture.get("/echo", [.cacheControl: "only-if-cached"])
        #expect(uncached.status == 504)
        #expect(try await fixture.get("/echo").headerFields[ProxyHeader.xCache] == "MISS")
        // no-cache revalidates the stored response with its validators (RFC 9111 §5.2.1.4).
        let reload = try await fixture.get("/echo", [.cacheControl: "no-cache"])
        #expect(reload.headerFields[ProxyHeader.xCache] == "REVALIDATED")
        #expect(fixture.upstream.count() == 2)

        await origin.stop()
        fixture.clock.advance(by: 120)
        let stale = try await fixture.get("/echo")
        #expect(stale.status == 200)
        #expect(stale.headerFields[ProxyHeader.xCache] == "STALE")
        #expect(stale.headerFields[.age] == "120")
        // A request that asks for validation never gets the stale response instead.
        let refetch = try await fixture.get("/echo", [.cacheControl: "no-cache"])
        #expect(refetch.status == 502)
        await fixture.proxy.stop()
    }
}
