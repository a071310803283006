import APICore
import APICoreOffline
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import GRDB
import HTTPTypes
import ReferenceBackend
import Testing

/// The address book's sync under seeded, randomized schedules (OFF-13 to OFF-17, CON-5): on real SQLite
/// files and the reference backend, each schedule interleaves server changes (by this user and by another),
/// device reads, offline edits, network cuts, budget cuts, the app dropped mid-run and started again from
/// its files, logouts, another user's sign-in and account deletion, some of them racing a sync. After each
/// schedule settles (Alice signed in, the network back, her queue drained, a sync completed):
/// - the device holds exactly the server's address book for Alice;
/// - no file holds a record of Bob, and no file of a signed-out user is left;
/// - every dispute Alice queued reached the server exactly once (at most once when her queue was erased);
/// - no read failed.
///
/// A failure names its seed; `MIB_SYNC_SCHEDULE_SEED=<seed>` runs that one alone, and
/// `MIB_SYNC_SCHEDULES=<n>` runs more (the longer run in docs/testing.md).
@Suite(.timeLimit(.minutes(10))) struct SyncScheduleTests {
    typealias Device = ContactsKitAgainstBackendTests.Device

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIB_SYNC_SCHEDULE_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["MIB_SYNC_SCHEDULES"].flatMap(Int.init) ?? 200
        return (0..<UInt64(count)).map { $0 &* 0x9E37_79B9 &+ 17 }
    }

    @Test func everySettledScheduleLeavesTheDeviceEqualToTheServerAndNothingOfAnotherUser() async throws {
        let fixture = try await BackendFixture.start(funnelCount: 5, contactCount: 24)
        defer { fixture.directory.remove() }
        let alice = try await fixture.credentials()
        let bob = try await fixture.credentials("bob@example.com", "Password2")
        var failures: [String] = []
        for seed in Self.seeds {
            let trace = Locked<[String]>([])
            // Each schedule under a deadline of its own: a hang fails with its seed and the steps it took.
            let outcome = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        var schedule = try Schedule(seed: seed, fixture: fixture, alice: alice, bob: bob, trace: trace)
                        try await schedule.run()
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
                group.addTask {
                    // Long: under load (CI runs the suite beside two busy processes) a schedule of seconds took over 60.
                    try? await Task.sleep(for: .seconds(240))
                    return Task.isCancelled ? nil : "hung after \(trace.withLock { $0 }.joined(separator: ", "))"
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let outcome {
                failures.append("seed \(seed): \(outcome)")
                if failures.count >= 3 { break }
            }
        }
        await fixture.backend.stop()
        #expect(failures.isEmpty, "\(failures.count) schedules failed:\n\(failures.joined(separator: "\n"))")
    }
}

/// What a schedule found wrong.
struct ScheduleViolation: Error, CustomStringConvertible {
    var description: String
}

/// One randomized schedule.
private struct Schedule {
    enum Step: CaseIterable {
        case serverRename, serverDelete, bobRename, read, offlineRename, dispute, replay, sync, cutSync, budgetSync, logout, signIn,
            switchToBob, deleteAccount, restart, syncRacingLogout, syncRacingSwitch
    }

    var random: SeededRandom
    let seed: UInt64
    let fixture: BackendFixture
    let alice: Credentials
    let bob: Credentials
    let folder: TemporaryDirectory
    var device: ContactsKitAgainstBackendTests.Device
    var signedIn: Credentials?
    let trace: Locked<[String]>
    /// Disputes Alice queued: reason → whether her queue was erased since (then at most once).
    var disputes: [String: Bool] = [:]
    /// Alice's renames still in her queue, kept on the device (a logout clears them with her file).
    var pendingRenames: [String: String] = [:]
    var counter = 0

    init(seed: UInt64, fixture: BackendFixture, alice: Credentials, bob: Credentials, trace: Locked<[String]>) throws {
        self.seed = seed
        self.trace = trace
        random = SeededRandom(seed: seed)
        self.fixture = fixture
        self.alice = alice
        self.bob = bob
        folder = try TemporaryDirectory()
        device = ContactsKitAgainstBackendTests.Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 5)
        signedIn = alice
    }

    mutating func run() async throws {
        defer { folder.remove() }
        for _ in 0..<random.next(in: 6...14) {
            let step = Step.allCases[random.next(in: 0...(Step.allCases.count - 1))]
            trace.withLock { $0.append("\(step)") }
            try await perform(step)
            trace.withLock { $0.append("done") }
        }
        do {
            // Before the settling sign-in clears every file: as the schedule left the device, with its user.
            try await checkBeforeSettling()
            try await settle()
            try await check()
        } catch {
            throw ScheduleViolation(description: "\(error) after \(trace.withLock { $0 }.joined(separator: ", "))")
        }
    }

    // MARK: Steps

    mutating func perform(_ step: Step) async throws {
        counter += 1
        let contact = "c\(random.next(in: 0...23))"
        switch step {
        case .serverRename:
            _ = try await fixture.send(
                .patch, "/contacts/\(contact)", json: #"{"displayName":"S\#(seed)-\#(counter)"}"#, token: alice.accessToken)
        case .serverDelete:
            _ = try await fixture.send(.delete, "/contacts/\(contact)", json: "", token: alice.accessToken)
        case .bobRename:
            _ = try await fixture.send(.patch, "/contacts/\(contact)", json: #"{"displayName":"Bob-\#(counter)"}"#, token: bob.accessToken)
        case .read:
            try await read()
        case .offlineRename:
            guard signedIn == alice else { return }
            do {
                try await device.contacts.rename(contactId: contact, to: "D\(seed)-\(counter)")
                pendingRenames[contact] = "D\(seed)-\(counter)"
            } catch {
                // Only a contact the device shows can be renamed: one it never had, or deleted since, is refused.
                guard error == .notFound else { throw error }
                #expect(try await device.contacts.contact(id: contact).value == nil, "seed \(seed): \(contact) refused but shown")
            }
        case .dispute:
            guard signedIn == alice else { return }
            let reason = "R\(seed)-\(counter)"
            try await device.contacts.fileDispute(reason: reason)
            disputes[reason] = false
        case .replay:
            _ = await device.queue.replay()
            pendingRenames = [:]  // some may have been sent: no longer known to be pending
        case .sync:
            _ = await device.contacts.syncNow()
            try await checkPendingRenamesShown()
        case .cutSync:
            let cutAt = random.next(in: 0...4)
            device.hook.before { _, index in index >= cutAt ? .connectionLost(reason: "cut") : nil }
            _ = await device.contacts.syncNow()
            device.hook.before(nil)
            try await checkPendingRenamesShown()
        case .budgetSync:
            let clock = device.clock
            let pages = random.next(in: 1...4)
            let counted = Locked(0)
            device.hook.after { request, _ in
                if request.url.path.hasPrefix("/contacts"),
                    counted.withLock({
                        $0 += 1
                        return $0
                    }) == pages
                {
                    clock.advance(by: 31)
                }
            }
            _ = await device.contacts.syncNow(until: clock.now().addingTimeInterval(30))
            device.hook.after(nil)
            try await checkPendingRenamesShown()
        case .logout:
            await logOut()
        case .signIn:
            await signIn(alice)
        case .switchToBob:
            await signIn(bob)
        case .deleteAccount:
            guard let user = signedIn else { return }
            try device.contacts.erase(userId: user.userId)
            await device.queue.erase(userId: user.userId)
            device.tokens.set(nil)
            signedIn = nil
            pendingRenames = [:]
            if user == alice { for reason in disputes.keys { disputes[reason] = true } }
        case .restart:
            // The app dropped mid-run and started again from its files (the run in flight abandoned).
            let base = device.hook.sent.count
            let done = Locked(false)
            let running = Task { [device] in
                _ = await device.contacts.syncNow()
                done.withLock { $0 = true }
            }
            let stopAt = random.next(in: 0...3)
            let old = device
            try await waitUntil("the run reached request \(stopAt)") { old.hook.sent.count > base + stopAt || done.withLock { $0 } }
            running.cancel()
            device = ContactsKitAgainstBackendTests.Device(fixture.backend, directory: folder.url, credentials: alice, syncPageSize: 5)
            device.tokens.set(signedIn)
            _ = await running.value
        case .syncRacingLogout, .syncRacingSwitch:
            let at = random.next(in: 0...4)
            let next: Credentials? = step == .syncRacingSwitch ? bob : nil
            let fired = Locked(false)
            let device = self.device
            device.hook.before { _, index in
                guard index >= at,
                    !fired.withLock({
                        let was = $0
                        $0 = true
                        return was
                    })
                else { return nil }
                try? await device.contacts.store.clearAll()
                device.tokens.set(next)
                return nil
            }
            _ = await device.contacts.syncNow()
            device.hook.before(nil)
            if fired.withLock({ $0 }) {
                pendingRenames = [:]
                if let user = signedIn { await device.queue.endSession(of: user.userId, keepingQueue: true) }
                signedIn = next
            }
        }
    }

    /// Alice's renames still queued are what her screens show, whatever the syncs stored meanwhile.
    func checkPendingRenamesShown() async throws {
        guard signedIn == alice else { return }
        for (contact, name) in pendingRenames {
            guard let shown = try await device.contacts.contact(id: contact).value else { continue }
            if shown.displayName != name {
                throw ScheduleViolation(
                    description: "a sync undid the queued rename of \(contact): shows \(shown.displayName), not \(name)")
            }
        }
    }

    /// A screen's reads: each must answer (nothing when signed out).
    func read() async throws {
        do {
            _ = try await device.contacts.contacts(limit: 50)
            _ = try await device.contacts.search("a")
            _ = try await device.contacts.circles()
        } catch ContactsError.signedOut where signedIn == nil {
        } catch {
            throw ScheduleViolation(description: "a read failed: \(error)")
        }
    }

    /// As the app logs out: every cache cleared, the queue kept for the next sign-in, the token gone.
    mutating func logOut() async {
        guard let user = signedIn else { return }
        pendingRenames = [:]
        try? await device.contacts.store.clearAll()
        await device.queue.endSession(of: user.userId, keepingQueue: true)
        device.tokens.set(nil)
        signedIn = nil
    }

    /// As the app signs in: every cache cleared first, then the new user's token.
    mutating func signIn(_ user: Credentials) async {
        pendingRenames = [:]
        if let current = signedIn { await device.queue.endSession(of: current.userId, keepingQueue: true) }
        try? await device.contacts.store.clearAll()
        device.tokens.set(user)
        signedIn = user
    }

    // MARK: Settling and checking

    mutating func settle() async throws {
        trace.withLock { $0.append("settle") }
        device.hook.before(nil)
        device.hook.after(nil)
        device.network.isOffline = false
        if signedIn != alice { await signIn(alice) }
        for _ in 0..<5 where await device.queue.replay().remaining > 0 {}
        var report = await device.contacts.syncNow()
        for _ in 0..<3 where report.outcome != .completed { report = await device.contacts.syncNow() }
        guard report.outcome == .completed else {
            throw ScheduleViolation(description: "the settling sync ended \(report.outcome): \(String(describing: report.error))")
        }
    }

    func check() async throws {
        let device = try await self.device.contacts.contacts(limit: 5_000).value.contacts
        let local = Dictionary(device.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let server = try await serverBook()
        if local != server {
            let differing = Set(local.keys).union(server.keys).filter { local[$0] != server[$0] }.sorted()
            throw ScheduleViolation(
                description: "device ≠ server at \(differing.map { "\($0): \(local[$0] ?? "-") vs \(server[$0] ?? "-")" })")
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: self.device.contacts.store.directory.path)) ?? []
        let databases = files.filter { $0.hasPrefix("contacts-") && $0.hasSuffix(".sqlite") }
        let alicesFile = self.device.contacts.store.fileURL(for: alice.userId).lastPathComponent
        if databases != [alicesFile] { throw ScheduleViolation(description: "files left: \(databases), Alice's is \(alicesFile)") }
        for file in databases {
            let database = try DatabaseQueue(path: self.device.contacts.store.directory.appendingPathComponent(file).path)
            let bobs = try await database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact WHERE CAST(body AS TEXT) LIKE '%Bob-%'") ?? 0
            }
            try database.close()
            if bobs > 0 { throw ScheduleViolation(description: "\(bobs) of Bob's records in \(file)") }
        }
        let filed = String(decoding: try await fixture.get("/disputes", token: alice.accessToken).body, as: UTF8.self)
        for (reason, erased) in disputes {
            let times = filed.components(separatedBy: "\"\(reason)\"").count - 1
            if times > 1 || (!erased && times != 1) {
                throw ScheduleViolation(description: "dispute \(reason) reached the server \(times) times (queue erased: \(erased))")
            }
        }
    }

    /// The device as the schedule left it, before the settling sign-in clears every file: signed out, no
    /// file is left; signed in, only that user's file is there, and it holds no record of the other user's
    /// (Alice's names are `S<seed>-…` and `D<seed>-…`, Bob's `Bob-…`). A run of one user that wrote after a
    /// logout or a switch (no owner check, a file shared by every user) is caught here, not hidden by the
    /// settling clear.
    func checkBeforeSettling() async throws {
        let directory = device.contacts.store.directory
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("contacts-") && $0.hasSuffix(".sqlite") }
        guard let user = signedIn else {
            if !files.isEmpty { throw ScheduleViolation(description: "signed out, files left: \(files)") }
            return
        }
        let own = device.contacts.store.fileURL(for: user.userId).lastPathComponent
        if files.contains(where: { $0 != own }) {
            throw ScheduleViolation(description: "\(user.userId) signed in, another user's file left: \(files)")
        }
        let others = user == alice ? ["Bob-"] : ["S\(seed)-", "D\(seed)-"]
        for file in files {
            let database = try DatabaseQueue(path: directory.appendingPathComponent(file).path)
            let foreign = try await database.read { db in
                try others.reduce(0) { count, prefix in
                    count
                        + (try Int.fetchOne(
                            db, sql: "SELECT COUNT(*) FROM contact WHERE CAST(body AS TEXT) LIKE ?", arguments: ["%\"\(prefix)%"]) ?? 0)
                }
            }
            try database.close()
            if foreign > 0 {
                throw ScheduleViolation(description: "\(foreign) records of another user in \(user.userId)'s file \(file)")
            }
        }
    }

    /// Alice's address book on the server, every page.
    func serverBook() async throws -> [String: String] {
        var book: [String: String] = [:]
        var after = ""
        while true {
            let response = try await fixture.get("/contacts?limit=500\(after)", token: alice.accessToken)
            let page = try JSONValue.parse(response.body)
            for contact in page["data"]?.arrayValue ?? [] {
                if let id = contact["id"]?.stringValue { book[id] = contact["displayName"]?.stringValue ?? "" }
            }
            guard let next = HTTPField.Name("X-Next-Cursor").flatMap({ response.headerFields[$0] }) else { return book }
            after = "&after=\(next)"
        }
    }
}
