import APICore
import APICoreOffline
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

/// The whole app over its life (REQ OFF-25): seeded stories on one device, lived by the real composition in
/// child processes (this test binary, filtered to ``childLivesTheStory()``) against the reference backend in
/// its own-ids mode. Three users sign in, out, expire and take turns; they create contacts offline and rename
/// them and give them circles, ask questions, change favorites (one refused by the server) and buy premium; the
/// network drops and returns; the child is killed with SIGKILL at random points and the next one goes on
/// through the one launch entry. Then the device settles (each user signs in, the queue drains, logs out) and:
/// - every change is on the server once, or at most once where a kill cut it or a logout discarded it before
///   it could be sent, and no purchase is charged twice (``LifeVerdict``);
/// - no user ever sees another's data (checked in the child at each sign-in, and at the settle);
/// - no file of a signed-out user remains (checked at each logout, and at the end for every user);
/// - nothing was called but the launch, sign-in, logout and the user's own changes.
///
/// `MIB_LIFE_STORIES` sets how many (100 by default, four shards of 25 one after another: in CI the suite runs
/// beside two busy processes, and these shards are its longest path; 2,000 for the long run, with
/// `--experimental-maximum-parallelization-width 4` so that its 40 shards run four at a time), `MIB_LIFE_SEED`
/// the first seed.
/// A failure names its seed and steps.
// One story at a time: four at once took the two cores from the rest of the suite, whose tests then passed their
// time limits (seen twice).
@Suite(.serialized, .timeLimit(.minutes(15))) struct AppLifeStoryCrashTests {
    static let childVariable = "MIB_LIFE_CHILD"
    static let environment = ProcessInfo.processInfo.environment
    static let stories = Int(environment["MIB_LIFE_STORIES"] ?? "") ?? 100
    static let firstSeed = UInt64(environment["MIB_LIFE_SEED"] ?? "") ?? 1
    /// About 50 stories a shard, each under the suite's time limit.
    static let shards = max(4, stories / 50)

    /// What a run of stories did.
    struct Totals: CustomStringConvertible {
        var stories = 0, steps = 0, changes = 0, kills = 0, cut = 0
        var description: String {
            "life stories: \(stories), \(steps) steps, \(changes) changes, \(kills) kills (\(cut) changes cut)"
        }
    }

    @Test(.enabled(if: environment[childVariable] == nil), arguments: 0..<shards)
    func everyChangeLandsOnceAndNoUserSeesAnothersData(shard: Int) async throws {
        var totals = Totals()
        let started = ContinuousClock.now
        for number in stride(from: shard, to: Self.stories, by: Self.shards) {
            let seed = Self.firstSeed + UInt64(number)
            try await withBackend(3, authRateLimits: nil, contactCount: 6, assignsIds: true) { fixture in
                let slug = try #require(try fixture.backend.catalog.allFunnels().first?.slug)
                let story = LifeStory(seed: seed, slug: slug)
                do {
                    let problems = try await Self.live(story, against: fixture, totals: &totals)
                    #expect(problems.isEmpty, "seed \(seed): \(problems)\nsteps: \(story.listing)")
                } catch {
                    Issue.record("seed \(seed): \(error)\nsteps: \(story.listing)")
                }
            }
        }
        print("shard \(shard): \(totals) in \(ContinuousClock.now - started)")
        #expect(totals.stories == (Self.stories - shard + Self.shards - 1) / Self.shards)
        // With a shard's fifty stories, kills land in changes every time (about twenty a shard); a handful may see none.
        if totals.stories >= 20 { #expect(totals.kills > 0 && totals.cut > 0, "no kill landed in a change: \(totals)") }
    }

    /// Lives `story` in child processes killed at random points, settles it, and returns what broke.
    static func live(_ story: LifeStory, against fixture: BackendFixture, totals: inout Totals) async throws -> [String] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try JSONEncoder().encode(story).write(to: directory.url.appendingPathComponent("story.json"))
        try Data(fixture.backend.baseURL.absoluteString.utf8).write(to: directory.url.appendingPathComponent("server.txt"))
        let journal = LifeJournal(directory: directory.url)
        var random = SeededRandom(seed: story.seed ^ 0x5EED)
        for _ in 0..<random.next(in: 1...3) {
            // Zero lines more: the kill lands in the launch, its replay or the first sync.
            let target = journal.lines.count + random.next(in: 0...10)
            let child = try CrashChild.start(test: "childLivesTheStory", environment: [childVariable: directory.url.path])
            defer { if child.process.isRunning { child.process.send(SIGKILL) } }
            try await waitUntil("the child to journal \(target) lines", timeout: .seconds(120)) {
                journal.lines.count >= target || !child.process.isRunning
            }
            do {
                if try await child.kill(after: .milliseconds(random.next(in: 0...25))) { totals.kills += 1 }
            } catch is CrashChildFailed {
                let failure = try? String(contentsOf: directory.url.appendingPathComponent("failure.txt"), encoding: .utf8)
                return ["a child failed before its kill: \(failure ?? "no reason written")"]
            }
        }
        // The last child lives the story to its end.
        let last = try CrashChild.start(test: "childLivesTheStory", environment: [childVariable: directory.url.path])
        defer { if last.process.isRunning { last.process.send(SIGKILL) } }
        try await waitUntil("the last child to end", timeout: .seconds(240)) { !last.process.isRunning }
        let failure = try? String(contentsOf: directory.url.appendingPathComponent("failure.txt"), encoding: .utf8)
        guard await last.process.waitUntilExit() == .exited(0) else { return ["the child failed: \(failure ?? "no reason written")"] }

        let verdict = LifeVerdict(story: story, ended: journal.ended, begun: journal.begun)
        totals.stories += 1
        totals.steps += story.steps.count
        totals.changes += story.steps.filter(\.kind.isChange).count
        totals.cut += journal.cut.count
        return try await settle(story, verdict, directory.url, fixture)
    }

    /// Every user of the story signs in on the device (the launch first), the queue drains, a purchase whose
    /// outcome was unknown is asked again, and they log out: what each sees is theirs, what the server holds
    /// keeps the verdict's promises, and in the end no file holds anything of the story.
    static func settle(_ story: LifeStory, _ verdict: LifeVerdict, _ directory: URL, _ fixture: BackendFixture) async throws -> [String] {
        let device = try LifeDevice(folder: directory.appendingPathComponent("device"), baseURL: fixture.backend.baseURL)
        try await device.admin(.delete, "/admin/faults")
        await device.app.composition.launch(offlineFirst: false)
        var problems: [String] = []
        for user in Set(story.steps.map(\.user)).sorted() {
            let credentials = LifeStory.users[user]
            try await device.app.signIn(email: credentials.email, password: credentials.password)
            try await device.drainQueue()
            if try await device.app.contacts.hasUnconfirmedPurchase() { try await device.app.contacts.subscribePremium() }
            _ = await device.app.contacts.syncNow()
            problems += try await device.foreignTexts(user: user, seed: story.seed).map { "user \(user) sees \($0)" }
            let refused = await device.app.queue.failures().filter {
                $0.mutation.name != "AddFavorite" || $0.error.serverCode != "NOT_FOUND"
            }
            problems += refused.map { "user \(user): a change refused: \($0.mutation.name) \($0.error)" }
            let server = try await serverView(of: user, fixture)
            problems += verdict.problems(user: user, server: server).map { "user \(user): \($0)" }
            _ = await device.app.logOut()
        }
        let left = LifeDevice.files(under: device.folder, containing: "L\(story.seed)u")
        if !left.isEmpty { problems.append("files of signed-out users remain: \(left)") }
        return problems
    }

    /// What the server holds of `user`: over HTTP with their own token, the chat history and charges from its store.
    static func serverView(of user: Int, _ fixture: BackendFixture) async throws -> LifeServerView {
        let credentials = try await fixture.credentials(LifeStory.users[user].email, LifeStory.users[user].password)
        var view = LifeServerView()
        let contacts = try JSONValue.parse(try await fixture.get("/contacts?limit=500", token: credentials.accessToken).body)
        for contact in contacts["data"]?.arrayValue ?? [] {
            if let name = contact["displayName"]?.stringValue { view.contactNames[name, default: 0] += 1 }
        }
        let circles = try JSONValue.parse(try await fixture.get("/circles", token: credentials.accessToken).body)
        for circle in circles["data"]?.arrayValue ?? [] {
            if let name = circle["name"]?.stringValue { view.circleNames[name, default: 0] += 1 }
        }
        let threads = try fixture.backend.catalog.threads(userId: credentials.userId, area: nil, since: nil)
        for message in try fixture.backend.catalog.messages(threadIds: threads.map(\.id)).values.joined() {
            view.messages[message.text, default: 0] += 1
        }
        view.charges = try fixture.backend.catalog.premiumCharges(userId: credentials.userId)
        return view
    }

    /// The positive controls: each check, fed a planted break (a change lost or applied twice, a double charge,
    /// another user's text on the screen, a file left by a signed-out user), reports it; fed the story as it
    /// should end, it reports nothing.
    @Test func eachCheckCatchesItsPlantedBreak() throws {
        // A story in which a user creates a contact and asks a question that must each land once.
        let found = (UInt64(1)...500).lazy.compactMap { seed -> (LifeStory, Int, Int, Int)? in
            let story = LifeStory(seed: seed, slug: "funnel-1")
            let verdict = LifeVerdict(story: story, ended: Dictionary(uniqueKeysWithValues: story.steps.indices.map { ($0, String?.none) }))
            for user in 0..<LifeStory.users.count {
                let mine = story.steps.indices.filter { story.steps[$0].user == user && verdict.mustLandOnce($0) }
                let creates = mine.filter { story.steps[$0].kind == .createContact && verdict.renameChain(from: $0).count == 1 }
                if let create = creates.first, let ask = mine.first(where: { story.steps[$0].kind == .ask }) {
                    return (story, user, create, ask)
                }
            }
            return nil
        }.first
        let (story, user, create, ask) = try #require(found)
        let verdict = LifeVerdict(story: story, ended: Dictionary(uniqueKeysWithValues: story.steps.indices.map { ($0, String?.none) }))
        var server = LifeServerView()
        for index in story.steps.indices where story.steps[index].user == user && verdict.mustLandOnce(index) {
            switch story.steps[index].kind {
            case .createContact: server.contactNames[verdict.renameChain(from: index).last?.name ?? "", default: 0] += 1
            case .circleWithCreated: server.circleNames[story.steps[index].marker] = 1
            case .ask: server.messages[story.steps[index].marker] = 1
            case .purchase: server.charges += 1
            default: continue
            }
        }
        #expect(verdict.problems(user: user, server: server).isEmpty, "the story as it should end")
        var twice = server
        twice.contactNames[story.steps[create].marker] = 2
        #expect(!verdict.problems(user: user, server: twice).isEmpty, "a contact created twice")
        var lost = server
        lost.messages[story.steps[ask].marker] = nil
        #expect(!verdict.problems(user: user, server: lost).isEmpty, "a question lost")
        var charged = server
        charged.charges += 1
        #expect(!verdict.problems(user: user, server: charged).isEmpty, "a purchase charged twice")

        let other = (user + 1) % LifeStory.users.count
        let theirs = LifeStory.userMarker(seed: story.seed, user: other) + "3"
        #expect(LifeDevice.foreign(in: ["Zoë", theirs], user: user, seed: story.seed) == [theirs], "another user's contact shown")
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let nested = folder.url.appendingPathComponent("support/mutations", isDirectory: true)
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("{\"displayName\":\"\(theirs)\"}".utf8).write(to: nested.appendingPathComponent("queue.json"))
        #expect(
            LifeDevice.files(under: folder.url, containing: LifeStory.userMarker(seed: story.seed, user: other)) == [
                "support/mutations/queue.json"
            ])
        // As the queue keeps a change: its body in base64 in a JSON file.
        let body = Data("{\"displayName\":\"\(theirs)\"}".utf8).base64EncodedString()
        try Data("[{\"body\":\"\(body)\"}]".utf8).write(to: nested.appendingPathComponent("queue.json"))
        let inBase64 = LifeDevice.files(under: folder.url, containing: LifeStory.userMarker(seed: story.seed, user: other))
        #expect(inBase64 == ["support/mutations/queue.json"], "a queued body in base64")
    }
}
