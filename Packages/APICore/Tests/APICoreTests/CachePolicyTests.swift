import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreREST

/// The five policies and the cache's corner cases, with a recording transport (logic only).
@Suite(.timeLimit(.minutes(10))) struct CachePolicyTests {
    let transport = RecordingTransport()
    let base = URL(string: "https://api.example.com")!
    let body = Data(#"{"id":1,"name":"one"}"#.utf8)

    func fixture() throws -> ClientFixture {
        try ClientFixture(baseURL: base, transport: transport)
    }

    @Test func cacheFirstFetchesOnceThenServesFromTheCache() async throws {
        transport.stub(.get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60"], body: body)
        let fixture = try fixture()
        #expect(try await fixture.client.send(.item("/a")).source == .network)
        #expect(try await fixture.client.send(.item("/a")).source == .cache)
        #expect(transport.requests.count == 1)
        #expect(transport.requests[0].headerFields[.authorization] == "Bearer token-a")
        let counts = fixture.counts()
        #expect((counts.hits, counts.misses) == (1, 1))
    }

    @Test func networkOnlyAlwaysAsksAndStores() async throws {
        transport.stub(.get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60", .eTag: "\"1\""], body: body)
        let fixture = try fixture()
        _ = try await fixture.client.send(.item("/a"))
        let refreshed = try await fixture.client.send(.item("/a"), policy: .fetchIgnoringCacheData)
        #expect(refreshed.source == .network)
        #expect(transport.requests.count == 2)
        #expect(transport.requests[1].headerFields[.ifNoneMatch] == nil)
        #expect(try await fixture.client.send(.item("/a"), policy: .returnCacheDataDontFetch).source == .cache)
    }

    @Test func noCachePolicyNeitherReadsNorWrites() async throws {
        transport.stub(.get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60"], body: body)
        let fixture = try fixture()
        _ = try await fixture.client.send(.item("/a"), policy: .fetchIgnoringCacheCompletely)
        await #expect(throws: APIError.notCached()) {
            try await fixture.client.send(.item("/a"), policy: .returnCacheDataDontFetch)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func cacheThenNetworkReturnsTheCacheAndRefreshesItInTheBackground() async throws {
        transport.stub(.get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60"], body: body)
        transport.stub(
            .get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60"],
            body: Data(#"{"id":1,"name":"two"}"#.utf8))
        let fixture = try fixture()
        _ = try await fixture.client.send(.item("/a"))
        let cached = try await fixture.client.send(.item("/a"), policy: .returnCacheDataAndFetch)
        #expect(cached.source == .cache)
        #expect(cached.value.name == "one")
        try await waitUntil("the background refresh finished") {
            transport.requests.count >= 2 && fixture.client.inFlight.count == 0
        }
        #expect(try await fixture.client.send(.item("/a"), policy: .returnCacheDataDontFetch).value.name == "two")
    }

    @Test func updatesDeliversTheStaleEntryThenTheRevalidatedOne() async throws {
        transport.stub(.get, "/a", status: 200, headerFields: [.cacheControl: "max-age=60", .eTag: "\"1\""], body: body)
        transport.stub(.get, "/a", status: 304, headerFields: [.eTag: "\"1\""])
        let fixture = try fixture()
        _ = try await fixture.client.send(.item("/a"))
        fixture.clock.advance(by: 120)
        var delivered: [(ResponseSource, Bool)] = []
        for try await update in fixture.client.updates(for: .item("/a")) {
            delivered.append((update.source, update.isStale))
            #expect(update.value.name == "one")
        }
        #expect(delivered.map(\.0) == [.cache, .revalidated])
        #expect(delivered.map(\.1) == [true, false])
    }

    @Test func updatesSendsAPostOnceAndCachesNothing() async throws {
        transport.stub(.post, "/a", status: 201, headerFields: [.cacheControl: "max-age=60"], body: body)
        let fixture = try fixture()
        var sources: [ResponseSource] = []
        for try await update in fixture.client.updates(for: APIRequest<Item>(method: .post, path: "/a")) {
            sources.append(update.source)
        }
        #expect(sources == [.network])
        #expect(transport.requests.count == 1)
        #expect(try await fixture.client.cacheParticipant.exportEntries().isEmpty)
    }

    @Test func heuristicFreshnessIsTenPercentOfTheLastModifiedAgeCappedAtADay() async throws {
        let fields: HTTPFields = [.date: "Thu, 15 Jan 2026 12:00:00 GMT", .lastModified: "Mon, 05 Jan 2026 12:00:00 GMT"]
        transport.stub(.get, "/a", status: 200, headerFields: fields, body: body)
        transport.stub(.get, "/a", status: 304, headerFields: [:])
        let fixture = try fixture()
        fixture.clock.set(to: HTTPDate.parse("Thu, 15 Jan 2026 12:00:00 GMT")!)
        _ = try await fixture.client.send(.item("/a"))
        fixture.clock.advance(by: 23 * 3600)
        #expect(try await fixture.client.send(.item("/a")).source == .cache)
        fixture.clock.advance(by: 2 * 3600)
        #expect(try await fixture.client.send(.item("/a")).source == .revalidated)
        #expect(transport.requests.last?.headerFields[.ifModifiedSince] == "Mon, 05 Jan 2026 12:00:00 GMT")
    }

    @Test func ageAndExpiresAreHonoured() async throws {
        transport.stub(.get, "/aged", status: 200, headerFields: [.cacheControl: "max-age=100", .age: "90"], body: body)
        transport.stub(
            .get, "/expires", status: 200,
            headerFields: [.date: "Thu, 15 Jan 2026 12:00:00 GMT", .expires: "Thu, 15 Jan 2026 12:05:00 GMT"], body: body)
        transport.stub(.get, "/expired", status: 200, headerFields: [.expires: "0"], body: body)
        let fixture = try fixture()
        fixture.clock.set(to: HTTPDate.parse("Thu, 15 Jan 2026 12:00:00 GMT")!)
        _ = try await fixture.client.send(.item("/aged"))
        _ = try await fixture.client.send(.item("/expires"))
        _ = try await fixture.client.send(.item("/expired"))
        fixture.clock.advance(by: 11)
        #expect(try await fixture.client.send(.item("/aged")).source == .network)
        #expect(try await fixture.client.send(.item("/expires")).source == .cache)
        #expect(try await fixture.client.send(.item("/expired")).source == .network)
        fixture.clock.advance(by: 300)
        #expect(try await fixture.client.send(.item("/expires")).source == .network)
    }

    @Test func aResponseThatArrivesAfterAClearIsNotStored() async throws {
        let gate = AsyncGate()
        let cleared = AsyncGate()
        transport.stub(.get, "/a") { _ in
            .success(
                TransportResponse(status: 200, headerFields: [.cacheControl: "max-age=60"], body: Data(#"{"id":1,"name":"one"}"#.utf8)))
        }
        let slow = SlowTransport(inner: transport, gate: gate, started: cleared)
        let fixture = try ClientFixture(baseURL: base, transport: slow)
        let pending = Task { try await fixture.client.send(.item("/a")) }
        await cleared.wait()
        try await fixture.client.cacheParticipant.clearAll()
        gate.open()
        #expect(try await pending.value.value.id == 1)
        await #expect(throws: APIError.notCached()) {
            try await fixture.client.send(.item("/a"), policy: .returnCacheDataDontFetch)
        }
    }

    @Test func clearingByCacheableKeyOrAccountIsExact() async throws {
        transport.stub(.get, "/accounts/100", status: 200, body: body)
        transport.stub(.get, "/accounts/1002", status: 200, body: body)
        let fixture = try fixture()
        func account(_ id: String) -> APIRequest<Item> {
            .item(
                "/accounts/\(id)",
                cacheable: Cacheable(
                    key: "account.\(id)", timeout: .seconds(300),
                    scope: .user("user-a", account: id)))
        }
        _ = try await fixture.client.send(account("100"))
        _ = try await fixture.client.send(account("1002"))
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
        unified.register(fixture.client.cacheParticipant)
        await unified.clearCache(forAccountId: "100")
        #expect(try await fixture.client.send(account("1002"), policy: .returnCacheDataDontFetch).source == .cache)
        await #expect(throws: APIError.notCached()) { try await fixture.client.send(account("100"), policy: .returnCacheDataDontFetch) }
        await unified.clearCache(forQuery: "account.1002")
        await #expect(throws: APIError.notCached()) { try await fixture.client.send(account("1002"), policy: .returnCacheDataDontFetch) }
        let rows = await unified.statistics().filter { $0.participant == "rest" }
        #expect(rows.map(\.counts.store) == ["http", "memory", "disk"])
        #expect(rows.first?.counts.writes == 2)
    }

    @Test func anUnstubbedRouteFailsLoudly() async throws {
        let fixture = try fixture()
        await #expect(throws: APIError.transport(.other(reason: "RecordingTransport: no stub for GET /nowhere"))) {
            try await fixture.client.send(.item("/nowhere"))
        }
    }
}

/// Holds every request at a gate, and says when one has started.
struct SlowTransport: HTTPTransport {
    let inner: RecordingTransport
    let gate: AsyncGate
    let started: AsyncGate

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        started.open()
        await gate.wait()
        return try await inner.send(request)
    }
}

/// HTTP dates and Cache-Control parsing.
@Suite(.timeLimit(.minutes(10))) struct HeaderParsingTests {
    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesTheThreeHTTPDateForms(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test(arguments: ["0", "", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT"])
    func rejectsInvalidDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func parsesCacheControlDirectives() {
        var fields: HTTPFields = [.cacheControl: "public, max-age=\"300\", must-revalidate"]
        fields.append(HTTPField(name: .cacheControl, value: "no-cache"))
        let directives = CacheControl(fields)
        #expect(directives.maxAge == 300)
        #expect(directives.isPublic && directives.mustRevalidate && directives.noCache)
        #expect(!directives.noStore && !directives.isPrivate)
        #expect(CacheControl([.cacheControl: "max-age=abc"]).maxAge == 0)
        #expect(CacheControl([.cacheControl: "private, no-store"]).noStore)
    }
}

/// The request URL built on the hot path.
@Suite(.timeLimit(.minutes(10))) struct RequestURLTests {
    @Test func encodesQueryItemsInOrderAndJoinsBaseAndPath() {
        let query = [
            URLQueryItem(name: "q", value: "a b&c=d"), URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "name", value: "Zoë/1"),
        ]
        #expect(
            RESTClient.urlString(base: "https://x.test/", path: "api/items", query: query)
                == "https://x.test/api/items?q=a%20b%26c%3Dd&flag&name=Zo%C3%AB%2F1")
        #expect(
            RESTClient.urlString(base: "https://x.test", path: "/a?b=1", query: [URLQueryItem(name: "c", value: "2")])
                == "https://x.test/a?b=1&c=2")
        #expect(RESTClient.urlString(base: "https://x.test", path: "https://other.test/z", query: []) == "https://other.test/z")
    }
}
