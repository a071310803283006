import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

/// ``SyncRunner`` and ``BackgroundSync`` over a source that stores into a real SQLite file: full, then
/// incremental, then full again after the maximum offline duration; a run cut off by its budget, a
/// failure or the system's expiration keeps what it stored and the next run resumes there.
@Suite(.timeLimit(.minutes(10))) struct SyncTests {
    @Test func aFirstRunIsFullTheNextIncrementalAndAFullOneAgainPastTheMaximumOfflineDuration() async throws {
        try await withSource { (source, clock) async throws in
            let runner = SyncRunner(source, clock: clock)
            let first = await runner.run()
            #expect(first.mode == .full && first.outcome == .completed && first.pages == 4 && first.counts == ["items": 10])
            #expect(try source.stored("alice") == source.server.snapshot())

            source.server.change(["i03", "i07"])
            clock.advance(by: 3_600)
            let second = await runner.run()
            #expect(second.mode == .incremental && second.pages == 1 && second.counts == ["items": 2] && second.requests == 1)
            #expect(try source.stored("alice") == source.server.snapshot())

            clock.advance(by: source.maximumOfflineDuration + 1)
            let third = await runner.run()
            #expect(third.mode == .full && third.counts == ["items": 10], "past the maximum offline duration: full again")
        }
    }

    @Test func aBackgroundSyncCutOffByItsBudgetKeepsItsPagesAndTheNextResumesWhereItStopped() async throws {
        try await withSource { (source, clock) async throws in
            source.server.secondsPerRequest = 10
            // A generous grace: the caller stopped at the deadline waits for the page being stored, even on a
            // machine so loaded that a task waits seconds for a thread.
            let background = BackgroundSync(runners: [SyncRunner(source, clock: clock, stoppingGrace: .seconds(60))], clock: clock)
            let cut = await background.run(budget: 25)
            let report = try #require(cut.syncs.first)
            #expect(report.outcome == .budgetExhausted && report.pages == 3 && !cut.isComplete)
            #expect(try source.stored("alice").count == 9, "the three pages fetched before the budget ran out are kept")
            #expect(try source.checkpoint("alice")?.pageCursor == "9")

            let resumed = await background.run(budget: 25)
            let rest = try #require(resumed.syncs.first)
            #expect(rest.resumed && rest.mode == .full && rest.pages == 1 && rest.outcome == .completed && resumed.isComplete)
            #expect(source.server.requests().map(\.pageCursor) == [nil, "3", "6", "9"], "no page fetched twice")
            #expect(try source.stored("alice") == source.server.snapshot())
        }
    }

    @Test func aFailedPageKeepsThePagesBeforeItAndTheNextRunFetchesItAgain() async throws {
        try await withSource { (source, clock) async throws in
            source.server.failingRequest = 2
            let runner = SyncRunner(source, clock: clock)
            let failed = await runner.run()
            #expect(failed.outcome == .failed && failed.pages == 2 && failed.error is FakeServer.Failure)
            #expect(try source.stored("alice").count == 6)
            let resumed = await runner.run()
            #expect(resumed.resumed && resumed.outcome == .completed && resumed.counts == ["items": 4])
            #expect(try source.stored("alice") == source.server.snapshot())
        }
    }

    @Test func theSystemsExpirationStopsTheRunCleanlyAndKeepsWhatItStored() async throws {
        try await withSource { (source, clock) async throws in
            source.server.stallingRequest = 1
            let background = BackgroundSync(runners: [SyncRunner(source, clock: clock)], clock: clock)
            let work = Task { await background.run() }
            try await waitUntil("the second page's request in flight") { source.server.requests().count == 2 }
            work.cancel()
            let report = try #require(await work.value.syncs.first)
            #expect(report.outcome == .cancelled && report.pages == 1 && report.error == nil)
            #expect(try source.stored("alice").count == 3)
        }
    }

    @Test func runsOfOneRunnerNeverOverlap() async throws {
        try await withSource { (source, clock) async throws in
            let gate = AsyncGate()
            source.server.gate = gate
            let runner = SyncRunner(source, clock: clock)
            async let first = runner.run()
            // The gate opens on every path: a failed wait would otherwise leave `first` blocked for ever under the
            // implicit await at the end of the scope.
            do {
                try await waitUntil("the first request in flight") { source.server.requests().count == 1 }
            } catch {
                gate.open()
                throw error
            }
            async let second = runner.run()
            await Task.yield()
            gate.open()
            let reports = await [first, second]
            #expect(reports.allSatisfy { $0.pages == 4 })
            #expect(source.server.requests().count == 4, "the second call joined the first run")
        }
    }

    /// The server refuses the changes token part way (the second page of an incremental run): the run turns
    /// into one full sync from its first page, and nothing of the refused run's pages is lost.
    @Test func aTokenRefusedPartWayTurnsTheRunIntoOneFullSync() async throws {
        try await withSource { (source, clock) async throws in
            _ = await SyncRunner(source, clock: clock).run()
            source.server.change(source.server.snapshot().keys.sorted())
            source.server.rejectingRequest = 5
            let report = await SyncRunner(source, clock: clock).run()
            #expect(report.fellBackToFullSync && report.mode == .full && report.outcome == .completed)
            #expect(source.server.requests().dropFirst(4).map(\.pageCursor) == [nil, "3", nil, "3", "6", "9"])
            #expect(try source.stored("alice") == source.server.snapshot())
        }
    }

    @Test func aRunStopsAndStoresNothingMoreOnceAnotherUserSignsIn() async throws {
        try await withSource { (source, clock) async throws in
            source.server.onRequest = { index in if index == 1 { source.signedIn.withLock { $0 = "bob" } } }
            let report = await SyncRunner(source, clock: clock).run()
            #expect(report.outcome == .sessionEnded && report.pages == 1)
            #expect(try source.stored("alice").count == 3, "the page fetched across the switch is not stored")
            #expect(try source.stored("bob").isEmpty, "nothing of the run reaches the new user")
            #expect(source.server.requests().count == 2, "no request after the switch")
        }
    }

    @Test func positiveControlARunWithNoSwitchStoresEveryPage() async throws {
        try await withSource { (source, clock) async throws in
            source.server.onRequest = { index in if index == 1 { source.signedIn.withLock { $0 = "alice" } } }
            let report = await SyncRunner(source, clock: clock).run()
            #expect(report.outcome == .completed && report.pages == 4)
            #expect(try source.stored("alice").count == 10)
        }
    }

    @Test func aCallerThatStopsWaitingLeavesTheRunToTheOneStillWaiting() async throws {
        try await withTwoCallersOnOneGatedRun { (source, runner, gate, first, second) async throws in
            first.cancel()
            let firstReport = await first.value
            #expect(firstReport.outcome == .cancelled && firstReport.pages == 0)
            gate.open()
            let secondReport = await second.value
            #expect(secondReport.outcome == .completed && secondReport.pages == 4, "the run went on for the caller still waiting")
            #expect(source.server.requests().count == 4, "one run, no page fetched twice")
        }
    }

    @Test func theRunStopsWhenEveryCallerStoppedWaiting() async throws {
        try await withTwoCallersOnOneGatedRun { (source, runner, gate, first, second) async throws in
            first.cancel()
            second.cancel()
            let reports = [await first.value, await second.value]
            #expect(reports.allSatisfy { $0.outcome == .cancelled })
            gate.open()
            try await waitUntil("the run ended") { runner.callersWaiting == 0 }
            #expect(try source.stored("alice").count <= 3, "the run stopped with its last caller")
        }
    }

    @Test func aJoinerKeepsItsOwnDeadlineAndTheRunGoesOnForTheLatest() async throws {
        try await withSource { (source, clock) async throws in
            source.server.secondsPerRequest = 10
            let gate = AsyncGate()
            source.server.gate = gate
            let runner = SyncRunner(source, clock: clock)
            let early = Task { await runner.run(until: clock.now().addingTimeInterval(15)) }
            let patient = Task { await runner.run(until: clock.now().addingTimeInterval(3_600)) }
            try await waitUntilOrOpen("two callers on one run", gate) { runner.callersWaiting == 2 }
            gate.open()
            let earlyReport = await early.value
            #expect(earlyReport.outcome == .budgetExhausted && earlyReport.pages < 4, "the early caller stops at its own deadline")
            let patientReport = await patient.value
            #expect(patientReport.outcome == .completed && patientReport.pages == 4, "not at the first caller's deadline")
        }
    }

    /// Runs never overlap, across owners too: Bob's run starts its work only once Alice's has ended, so two runs
    /// never write one file at once. While Alice's request is held, Bob's run sends nothing, however often the
    /// scheduler lets it go on (a thousand yields).
    @Test func aRunForTheNextUserStartsOnlyOnceThePreviousOneEnded() async throws {
        try await withSource { (source, clock) async throws in
            let gate = AsyncGate()
            source.server.gate = gate
            let runner = SyncRunner(source, clock: clock)
            let alices = Task { await runner.run() }
            try await waitUntilOrOpen("Alice's first request in flight", gate) { source.server.requests().count == 1 }
            source.signedIn.withLock { $0 = "bob" }
            let bobs = Task { await runner.run() }
            for _ in 0..<1_000 where source.server.requests().count == 1 { await Task.yield() }
            let whileAlicesWent = source.server.requests().count
            gate.open()
            _ = await alices.value
            #expect(whileAlicesWent == 1, "Bob's run sent a request while Alice's was still going")
            #expect(await bobs.value.outcome == .completed)
        }
    }

    @Test func aCallerForAnotherUserNeverJoinsTheRunOfTheOneBefore() async throws {
        try await withSource { (source, clock) async throws in
            let gate = AsyncGate()
            source.server.gate = gate
            let runner = SyncRunner(source, clock: clock)
            let alices = Task { await runner.run() }
            try await waitUntilOrOpen("Alice's first request in flight", gate) { source.server.requests().count == 1 }
            source.signedIn.withLock { $0 = "bob" }
            let bobs = Task { await runner.run() }
            gate.open()
            let (alice, bob) = (await alices.value, await bobs.value)
            #expect(alice.outcome != .completed)
            #expect(bob.outcome == .completed && bob.pages == 4, "Bob's own run, not Alice's report")
            #expect(try source.stored("bob").count == 10)
        }
    }

    @Test func nobodySignedInRunsNothingAndSaysWhy() async throws {
        try await withSource { (source, clock) async throws in
            source.signedIn.withLock { $0 = nil }
            let report = await SyncRunner(source, clock: clock).run()
            #expect(report.outcome == .failed && report.mode == nil && report.error is ItemsSource.SignedOut)
            #expect(source.server.requests().isEmpty)
        }
    }

    @Test func theBackgroundSyncRunsEveryRunnerAndReportsThemInOrder() async throws {
        try await withSource { (source, clock) async throws in
            let other = ItemsSource(name: "other", server: FakeServer(count: 2), database: source.database, signedIn: source.signedIn)
            let report = await BackgroundSync(runners: [SyncRunner(source, clock: clock), SyncRunner(other, clock: clock)], clock: clock)
                .run()
            #expect(report.syncs.map(\.name) == ["items", "other"] && report.isComplete)
            #expect(report.syncs.map(\.items) == [10, 2])
        }
    }

    /// Two callers of one runner waiting on one run, its first request held behind `gate`.
    private func withTwoCallersOnOneGatedRun(
        _ body: (ItemsSource, SyncRunner, AsyncGate, Task<SyncReport, Never>, Task<SyncReport, Never>) async throws -> Void
    ) async throws {
        try await withSource { (source, clock) async throws in
            let gate = AsyncGate()
            source.server.gate = gate
            let runner = SyncRunner(source, clock: clock)
            let first = Task { await runner.run() }
            let second = Task { await runner.run() }
            try await waitUntilOrOpen("two callers on one run", gate) {
                runner.callersWaiting == 2 && source.server.requests().count == 1
            }
            try await body(source, runner, gate, first, second)
        }
    }

    /// ``waitUntil(_:timeout:_:)`` that opens `gate` when the wait fails, so nothing behind it waits for ever.
    private func waitUntilOrOpen(_ description: String, _ gate: AsyncGate, _ condition: () -> Bool) async throws {
        do {
            try await waitUntil(description) { condition() }
        } catch {
            gate.open()
            throw error
        }
    }

    private func withSource(_ body: (ItemsSource, ManualClock) async throws -> Void) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()
        let database = try DatabaseQueue(path: folder.url.appendingPathComponent("items.sqlite").path)
        try await database.write { db in
            try SyncCheckpoint.createTable(db)
            try db.execute(
                sql: "CREATE TABLE item (owner TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (owner, id))")
        }
        let server = FakeServer(count: 10)
        server.clock = clock
        try await body(ItemsSource(name: "items", server: server, database: database, signedIn: Locked("alice")), clock)
    }
}

/// A server of `count` items (`i00`, `i01`, …), each with the version it last changed at: a full sync
/// pages through them by offset, an incremental one through those changed since a version.
final class FakeServer: @unchecked Sendable {
    struct Failure: Error {}
    private let state: Locked<(items: [String: Int], version: Int, requests: [SyncPageRequest])>
    private let settings = Locked<Settings>(Settings())
    struct Settings {
        var secondsPerRequest: TimeInterval = 0
        var failingRequest: Int?
        var rejectingRequest: Int?
        var stallingRequest: Int?
        var gate: AsyncGate?
        var onRequest: (@Sendable (Int) -> Void)?
        var clock: ManualClock?
    }

    init(count: Int) {
        let items = Dictionary(uniqueKeysWithValues: (0..<count).map { (String(format: "i%02d", $0), 1) })
        state = Locked((items, 1, []))
    }

    var secondsPerRequest: TimeInterval {
        get { settings.withLock { $0.secondsPerRequest } }
        set { settings.withLock { $0.secondsPerRequest = newValue } }
    }
    var failingRequest: Int? {
        get { settings.withLock { $0.failingRequest } }
        set { settings.withLock { $0.failingRequest = newValue } }
    }
    /// The request (by index) answered as a server refusing the changes token.
    var rejectingRequest: Int? {
        get { settings.withLock { $0.rejectingRequest } }
        set { settings.withLock { $0.rejectingRequest = newValue } }
    }
    var stallingRequest: Int? {
        get { settings.withLock { $0.stallingRequest } }
        set { settings.withLock { $0.stallingRequest = newValue } }
    }
    var gate: AsyncGate? {
        get { settings.withLock { $0.gate } }
        set { settings.withLock { $0.gate = newValue } }
    }
    var onRequest: (@Sendable (Int) -> Void)? {
        get { settings.withLock { $0.onRequest } }
        set { settings.withLock { $0.onRequest = newValue } }
    }
    var clock: ManualClock? {
        get { settings.withLock { $0.clock } }
        set { settings.withLock { $0.clock = newValue } }
    }

    func snapshot() -> [String: Int] { state.withLock { $0.items } }
    func requests() -> [SyncPageRequest] { state.withLock { $0.requests } }

    /// Changes `ids` at a new version.
    func change(_ ids: [String]) {
        state.withLock { state in
            state.version += 1
            for id in ids { state.items[id] = state.version }
        }
    }

    func page(_ request: SyncPageRequest, size: Int) async throws -> SyncPage<[String: Int]> {
        let index = state.withLock { state in
            state.requests.append(request)
            return state.requests.count - 1
        }
        let settings = settings.withLock { $0 }
        settings.onRequest?(index)
        await settings.gate?.wait()
        // A stalled request answers only when cancelled (an hour is for ever to a test).
        if settings.stallingRequest == index { try await Task.sleep(for: .seconds(3_600)) }
        settings.clock?.advance(by: settings.secondsPerRequest)
        if settings.failingRequest == index { throw Failure() }
        if settings.rejectingRequest == index { throw SyncError.changesTokenRejected }
        let (items, version) = state.withLock { state in
            let since = request.changesToken.flatMap(Int.init) ?? 0
            return (state.items.filter { $0.value > since }.sorted { $0.key < $1.key }, state.version)
        }
        let offset = request.pageCursor.flatMap(Int.init) ?? 0
        let slice = items.dropFirst(offset).prefix(size)
        let next = offset + size < items.count ? String(offset + size) : nil
        return SyncPage(
            content: Dictionary(uniqueKeysWithValues: slice.map { ($0.key, $0.value) }), counts: ["items": slice.count],
            nextPageCursor: next, changesToken: String(version))
    }
}

/// Items synced into `item (owner, id, version)`, with the checkpoint in the same transaction.
struct ItemsSource: SyncSource {
    struct SignedOut: Error {}
    let name: String
    let server: FakeServer
    let database: DatabaseQueue
    let signedIn: Locked<String?>

    func owner() async throws -> String {
        guard let user = signedIn.withLock({ $0 }) else { throw SignedOut() }
        return user
    }

    func checkpoint(for owner: String) async throws -> SyncCheckpoint? {
        try checkpoint(owner)
    }

    func fetchPage(_ request: SyncPageRequest, for owner: String) async throws -> SyncPage<[String: Int]> {
        try await server.page(request, size: 3)
    }

    func store(_ page: SyncPage<[String: Int]>, checkpoint: SyncCheckpoint, for owner: String) async throws {
        try await database.write { db in
            for (id, version) in page.content {
                try db.execute(sql: "INSERT OR REPLACE INTO item VALUES (?, ?, ?)", arguments: [owner, id, version])
            }
            try checkpoint.save(db, sync: "\(name):\(owner)")
        }
    }

    func checkpoint(_ owner: String) throws -> SyncCheckpoint? {
        try database.read { db in try SyncCheckpoint.fetch(db, sync: "\(name):\(owner)") }
    }

    func stored(_ owner: String) throws -> [String: Int] {
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, version FROM item WHERE owner = ?", arguments: [owner])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as Int) })
        }
    }
}
