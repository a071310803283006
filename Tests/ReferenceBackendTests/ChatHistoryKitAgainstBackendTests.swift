import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import ChatHistoryKit
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend
import Testing

/// ChatHistoryKit against the reference backend on 127.0.0.1: restore on a new device, clear and
/// sync again, incremental sync, a sync that resumes, a question sent offline across a restart, the
/// prediction after midnight, and the astro cache.
@Suite(.timeLimit(.minutes(10))) struct ChatHistoryKitAgainstBackendTests {
    /// The kit on one "device": its caches, queue and history in `directory`.
    struct Device {
        let clock: ManualClock
        let transport = CountingTransport(URLSessionTransport())
        let tokens: StaticTokenProvider
        let rest: RESTClient
        let queue: MutationQueue
        let chat: ChatHistoryClient

        init(
            _ backend: ReferenceBackend, directory: URL, credentials: Credentials, timeZone: TimeZone = .gmt,
            syncPageSize: Int = 200, clock: ManualClock = ManualClock(), wrap: (any HTTPTransport) -> any HTTPTransport = { $0 }
        ) throws {
            self.clock = clock
            var logger = Logger(label: "chat-test")
            logger.logLevel = .critical
            tokens = StaticTokenProvider(credentials)
            let environment = CacheEnvironment(clock: clock, logger: logger, cachesDirectory: directory.appendingPathComponent("caches"))
            rest = RESTClient(
                configuration: .init(
                    baseURL: backend.baseURL, transport: wrap(transport), environment: environment,
                    tokenProvider: tokens, retry: .none))
            queue = MutationQueue(
                configuration: .init(
                    directory: directory.appendingPathComponent("mutations"), tokenProvider: tokens,
                    rest: rest, clock: clock, sleeper: RecordingSleeper(), logger: logger))
            chat = try ChatHistoryClient(
                rest: rest, queue: queue, environment: environment, timeZone: timeZone, syncPageSize: syncPageSize)
        }
    }

    /// Runs `body` with Alice signed in on a device whose requests go through a hook (which records whose token
    /// each left with), and Bob's credentials for a switch.
    static func withHookedDevice(
        syncPageSize: Int = 200, _ body: (BackendFixture, Credentials, Credentials, Device, HookTransport) async throws -> Void
    ) async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let hook = HookTransport(URLSessionTransport())
            let device = try Device(
                fixture.backend, directory: folder.url, credentials: alice, syncPageSize: syncPageSize, wrap: { _ in hook })
            try await body(fixture, alice, bob, device, hook)
        }
    }

    func serverHistory(_ fixture: BackendFixture, _ user: String) throws -> [String: [String]] {
        var history: [String: [String]] = [:]
        for thread in try fixture.backend.catalog.threads(userId: user, area: nil, since: nil) {
            history[thread.id] = try fixture.backend.catalog.messages(threadId: thread.id).map(\.id)
        }
        return history
    }

    func localHistory(_ device: Device) async throws -> [String: [String]] {
        var history: [String: [String]] = [:]
        for thread in try await device.chat.threads() {
            history[thread.id] = try await device.chat.messages(threadId: thread.id).map(\.id)
        }
        return history
    }

    /// Bob signs in between the moment today's prediction asks who is signed in and the moment its request
    /// takes a token: nothing leaves with Bob's token, and nothing is kept for Alice.
    @Test func aUserSwitchMidLoadSendsNothingWithTheNextUsersToken() async throws {
        try await Self.withHookedDevice { (_, alice, bob, device, hook) async throws in
            device.tokens.set(bob, afterCalls: 1)
            await #expect(throws: ChatHistoryError.self) { try await device.chat.todaysPrediction() }
            device.tokens.set(alice)
            #expect(await device.chat.cachedTodaysPrediction() == nil, "bob's prediction kept as alice's")
            #expect(hook.sent.isEmpty, "sent with bob's token for alice: \(hook.sent.map(\.path))")
        }
    }

    @Test func aNewDeviceRestoresEverythingPageByPageAndAClearThenSyncGivesTheSameHistory() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 2)
            let report = try await device.chat.syncFromServer()
            let server = try serverHistory(fixture, alice.userId)
            #expect(report.threads == server.count && report.pages == server.count / 2 + 1)
            #expect(try await localHistory(device) == server)
            let areas = try await device.chat.threads(area: .compatibility).map(\.area)
            #expect(!areas.isEmpty && areas.allSatisfy { $0 == .compatibility })

            try await device.chat.store.clearAll()
            #expect(try await localHistory(device).isEmpty)
            try await device.chat.syncFromServer()
            #expect(try await localHistory(device) == server, "clearing and syncing again gives the same history")
        }
    }

    @Test func anIncrementalSyncFetchesOnlyWhatChanged() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice)
            try await device.chat.syncFromServer()
            let thread = try #require(try fixture.backend.catalog.threads(userId: alice.userId, area: nil, since: nil).first)
            #expect(
                try await fixture.send(
                    .post, "/chat-history/threads/\(thread.id)/messages",
                    json: #"{"id":"late-1","role":"user","text":"One more?"}"#, token: alice.accessToken
                ).status == 201)
            let before = device.transport.count()
            let report = try await device.chat.syncFromServer()
            #expect(report.threads == 1 && report.messages == 5, "one changed thread, its messages")
            #expect(device.transport.count() - before == 1, "one page, the changed thread's messages inside it")
            #expect(try await device.chat.messages(threadId: thread.id).last?.id == "late-1")
            #expect(try await device.chat.syncFromServer().threads == 0)
        }
    }

    @Test func aRestoreTakesOneRequestAPageAndAServerThatDoesNotEmbedMessagesOneAThread() async throws {
        for embeds in [true, false] {
            try await withBackend(5, embedsChatMessages: embeds) { fixture in
                let alice = try await fixture.credentials()
                let folder = try TemporaryDirectory()
                defer { folder.remove() }
                let threads = try fixture.backend.catalog.threads(userId: alice.userId, area: nil, since: nil)
                let device = try Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 2)
                try await device.chat.syncFromServer()
                #expect(try await localHistory(device) == (try serverHistory(fixture, alice.userId)))
                let pages = device.transport.count("/chat-history/threads")
                #expect(pages == threads.count / 2 + 1)
                let perThread = device.transport.count() - pages
                #expect(perThread == (embeds ? 0 : threads.count), "embedded: \(embeds)")
            }
        }
    }

    @Test func aSyncThatFailsPartWayResumesAfterTheLastPageStored() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let threads = try fixture.backend.catalog.threads(userId: alice.userId, area: nil, since: nil)
            try #require(threads.count >= 3)
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 1)
            // The third page (one thread a page) fails: every third request to the threads fails.
            #expect(
                try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/chat-history/threads","errorRate":0.34}]"#)
                    .status == 204)
            await #expect(throws: ChatHistoryError.self) { try await device.chat.syncFromServer() }
            #expect(try await device.chat.threads().count == 2, "the pages before the failure are kept")
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            let resumed = try await device.chat.syncFromServer()
            #expect(resumed.threads == threads.count - 2, "resumed after the last page stored")
            #expect(try await localHistory(device) == (try serverHistory(fixture, alice.userId)))
        }
    }

    @Test func aBackgroundSyncCutOffByItsBudgetResumesWhereItStoppedAndFetchesNoThreadTwice() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let threads = try fixture.backend.catalog.threads(userId: alice.userId, area: nil, since: nil)
            try #require(threads.count >= 3)
            let clock = ManualClock()
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 1, clock: clock) { base in
                SlowTransport(base) { clock.advance(by: 2) }
            }
            let background = BackgroundSync(runners: [device.chat.sync], clock: device.clock)
            // A page is one request (the threads with their messages) whose answer comes two seconds later: the
            // budget is checked before the first page (0 s), the second (2 s), and stops before the third (4 s).
            let cut = try #require(await background.run(budget: 3).syncs.first)
            // The report counts what was stored when the caller stopped waiting (within a second's grace);
            // the device holds both pages either way.
            #expect(cut.outcome == .budgetExhausted && (1...2).contains(cut.pages))
            #expect(try await device.chat.threads().count == 2, "the pages stored before the budget ran out are kept")

            let rest = try #require(await background.run(budget: 3_600).syncs.first)
            #expect(rest.resumed && rest.outcome == .completed && rest.counts["threads"] == threads.count - 2)
            #expect(try await localHistory(device) == (try serverHistory(fixture, alice.userId)))
            // A page a thread, and the empty page that ends the run: no page fetched twice.
            #expect(device.transport.count("/chat-history/threads") == threads.count + 1)
            #expect(threads.allSatisfy { device.transport.count("/chat-history/threads/\($0.id)/messages") == 0 })
        }
    }

    @Test func aQuestionAskedOfflineAcrossARestartMakesOneExchangeOnTheServer() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            #expect(
                try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/predict","dropConnection":true}]"#).status == 204)
            let offline = try Device(fixture.backend, directory: folder.url, credentials: alice)
            let pending = try await offline.chat.ask("What does June hold?")
            #expect(try await offline.chat.messages(threadId: pending.threadId).map(\.state) == [.pending], "shown at once, pending")
            #expect(await offline.queue.pending().map(\.idempotencyKey) == [pending.id], "the client id is the idempotency key")
            #expect(await offline.queue.replay().remaining == 1)

            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            let relaunched = try Device(fixture.backend, directory: folder.url, credentials: alice)
            #expect(await relaunched.queue.replay().sent == 1)
            _ = await relaunched.queue.replay()
            try await relaunched.chat.syncFromServer()
            let server = try fixture.backend.catalog.messages(threadId: pending.threadId)
            #expect(server.map(\.id) == [pending.id, pending.id + "-reply"], "one question, one reply")
            let local = try await relaunched.chat.messages(threadId: pending.threadId)
            #expect(local.map(\.id) == server.map(\.id) && local.allSatisfy { $0.state == .sent })
        }
    }

    @Test func todaysPredictionIsAMissAfterMidnightInTheUsersTimeZoneWithNoRequest() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice, timeZone: tokyo)
            let first = try await device.chat.todaysPrediction()
            let requests = device.transport.count()
            #expect(try await device.chat.todaysPrediction() == first && device.transport.count() == requests)
            // The manual clock starts at 2026-01-15 12:00 UTC: 21:00 in Tokyo. Three hours later it is tomorrow there.
            device.clock.advance(by: 3 * 3_600 + 1)
            #expect(await device.chat.cachedTodaysPrediction() == nil)
            #expect(device.transport.count() == requests, "no request to know it is a new day")
            let next = try await device.chat.todaysPrediction()
            #expect(next.date == "2026-01-16" && first.date == "2026-01-15")
        }
    }

    @Test func astroDataIsCachedForeverUntilTheBirthDataChanges() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice)
            let birth = BirthData(dateTime: "1990-04-12T06:30", latitude: 48.85, longitude: 2.35)
            let chart = try await device.chat.chart(for: birth)
            let dasha = try await device.chat.dasha(for: birth, year: 2026)
            _ = try await device.chat.transits(for: birth, year: 2026)
            let requests = device.transport.count()
            device.clock.advance(by: 365 * 86_400)
            #expect(try await device.chat.chart(for: birth) == chart)
            #expect(try await device.chat.dasha(for: birth, year: 2026) == dasha)
            #expect(device.transport.count() == requests, "a year later, still no request")
            #expect(await device.chat.charts.cached(forKey: "chart_\(device.chat.astroKey(for: birth))", requester: alice.userId) != nil)

            try await device.chat.birthDataChanged()
            #expect(await device.chat.charts.cached(forKey: "chart_\(device.chat.astroKey(for: birth))", requester: alice.userId) == nil)
            _ = try await device.chat.chart(for: birth)
            #expect(device.transport.count() == requests + 1)
        }
    }

    /// REQ CHAT-5: when the profile restored at login carries other birth data than before, the astro
    /// data computed for the old one is cleared.
    @Test func aProfileWithOtherBirthDataClearsTheAstroCaches() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let moved = Locked(false)
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice) { base in
                BirthDataRewriter(base: base, moved: moved)
            }
            let before = try #require(try await device.chat.restoreProfileLocally().birthData)
            _ = try await device.chat.chart(for: before)
            let key = "chart_\(device.chat.astroKey(for: before))"
            #expect(await device.chat.charts.cached(forKey: key, requester: alice.userId) != nil)
            _ = try await device.chat.restoreProfileLocally()
            #expect(await device.chat.charts.cached(forKey: key, requester: alice.userId) != nil, "the same birth data keeps them")
            moved.withLock { $0 = true }
            let after = try await device.chat.restoreProfileLocally().birthData
            #expect(after != before)
            #expect(await device.chat.charts.cached(forKey: key, requester: alice.userId) == nil, "other birth data clears them")
        }
    }

    @Test func theSubscriptionIsFetchedAtLoginInParallelWithTheSyncAndKeptForTheSession() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            // The history's first request and the subscription's are each held until the other has gone out:
            // done one after the other, in either order, the first would wait in vain and report no overlap.
            let overlap = OverlapTransport(held: "/chat-history/threads", until: "/subscription/profile")
            let device = try Device(fixture.backend, directory: folder.url, credentials: alice) { overlap.wrapping($0) }
            let (history, subscription) = await device.chat.syncOnLogin()
            #expect(overlap.overlapped == true, "the subscription was not requested while the sync was under way")
            #expect((try? history.get().threads) ?? 0 > 0)
            let profile = try subscription.get()
            #expect(profile.birthData != nil && profile.dailyLimit == 20)
            #expect(await device.chat.restoredBirthData() == profile.birthData, "restored locally on a new device")
            let requests = device.transport.count()
            #expect(try await device.chat.subscription() == profile && device.transport.count() == requests)
            _ = try await device.chat.subscription(refresh: true)
            #expect(device.transport.count() == requests + 1, "a login always asks again")
        }
    }
}

/// A barrier for two requests: the first of each path prefix to go out is held until the other has gone out
/// too (at most ``TestDeadline/request``). Sent one after the other, in either order, the first waits for a
/// request that never comes and reports no overlap; sent together, both pass.
final class OverlapTransport: Sendable {
    private let paths: (String, String)
    private let state = Locked<(arrived: Set<String>, met: [String: Bool])>(([], [:]))

    init(held: String, until: String) {
        paths = (held, until)
    }

    /// `true` when each of the two requests saw the other go out while it waited; `false` when either
    /// gave up; `nil` until both were sent.
    var overlapped: Bool? {
        state.withLock { state in state.met.count == 2 ? state.met.values.allSatisfy { $0 } : nil }
    }

    func wrapping(_ base: any HTTPTransport) -> any HTTPTransport {
        Wrapped(base: base, owner: self)
    }

    private struct Wrapped: HTTPTransport {
        let base: any HTTPTransport
        let owner: OverlapTransport

        func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
            let path = request.url.path
            let (first, second) = owner.paths
            guard let mine = [first, second].first(where: path.hasPrefix),
                owner.state.withLock({ $0.arrived.insert(mine).inserted })
            else { return try await base.send(request) }
            let other = mine == first ? second : first
            let met: Bool
            do {
                try await waitUntil("the other request", timeout: TestDeadline.request) {
                    owner.state.withLock { $0.arrived.contains(other) }
                }
                met = true
            } catch {
                met = false
            }
            owner.state.withLock { $0.met[mine] = met }
            return try await base.send(request)
        }
    }
}

/// Moves a manual clock forward on each request, as if each took a while.
private struct SlowTransport: HTTPTransport {
    let base: any HTTPTransport
    let elapse: @Sendable () -> Void

    init(_ base: any HTTPTransport, elapse: @escaping @Sendable () -> Void) {
        self.base = base
        self.elapse = elapse
    }

    /// The time passes as the answer arrives: a deadline that falls inside the exchange is reached with the
    /// page in hand (a deadline reached while a request is in flight cancels it: `SyncBudgetTests`).
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let response = try await base.send(request)
        elapse()
        return response
    }
}

/// Gives the profile other birth data (another year) once `moved` is set, as a profile edited elsewhere would.
private struct BirthDataRewriter: HTTPTransport {
    let base: any HTTPTransport
    let moved: Locked<Bool>

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var response = try await base.send(request)
        if request.url.path == "/subscription/profile", moved.withLock({ $0 }) {
            response.body = Data(String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "1990-", with: "1991-").utf8)
        }
        return response
    }
}
