import APICore
import APICoreOffline
import AccountsKit
import CacheKit
import CacheKitTesting
import CatalogKit
import ChatHistoryKit
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp
import MIBCore
import SessionKit
import Testing

/// The device of a life story: the app as the child process builds it, and each step as a user does it.
struct LifeDevice {
    let app: DemoComposition
    let baseURL: URL
    let folder: URL

    /// The app over `folder` (the device's caches and support folders), as it launches: the one launch entry,
    /// first syncs started by it, queued changes discarded at a logout (so no file of a signed-out user stays).
    init(folder: URL, baseURL: URL) throws {
        self.folder = folder
        self.baseURL = baseURL
        app = try DemoComposition(
            baseURL: baseURL, cachesDirectory: folder.appendingPathComponent("caches"),
            supportDirectory: folder.appendingPathComponent("support"), keepsQueueAtLogout: false, logger: AppLifeTests.quiet,
            startsFirstSync: true)
    }

    /// Signs in as a user does: again when the network did not carry the answer (on a loaded machine a request
    /// has taken longer than the app's timeout), five times at most; any other failure is the step's.
    func signIn(email: String, password: String) async throws {
        for attempt in 1...5 {
            do {
                _ = try await app.signIn(email: email, password: password)
                return
            } catch SignInError.api(let error) where error.isRetryable && attempt < 5 {
                continue
            }
        }
    }

    /// A step failed in a way no user action explains.
    struct Broken: Error, CustomStringConvertible {
        var description: String
    }

    /// Does `step`; returns what the journal keeps of it (the name a rename or a membership acted on). A rename
    /// acts on `target`, the contact its begin line named.
    func perform(_ step: LifeStory.Step, of story: LifeStory, target: Contact?) async throws -> String? {
        let user = LifeStory.users[step.user]
        switch step.kind {
        case .signIn:
            try await signIn(email: user.email, password: user.password)
            try await checkNothingForeign(user: step.user, seed: story.seed)
        case .logout:
            // Also when the logout runs again after a kill inside it: nothing of the user stays either way.
            _ = await app.logOut()
            try checkNoFile(containing: LifeStory.userMarker(seed: story.seed, user: step.user))
        case .expire:
            guard let userId = await app.session.currentCredentials()?.userId else { return "skipped" }
            try await admin(.post, "/admin/sessions/\(userId)/expire")
            _ = try? await app.accounts.dashboard()
            guard await app.waitForSession({ $0.expiry != nil || $0.user == nil }) != nil else {
                throw Broken(description: "the expiry was never heard")
            }
        case .offline:
            try await admin(.put, "/admin/faults", #"[{"dropConnection":true}]"#)
        case .online:
            try await admin(.delete, "/admin/faults")
        case .settle:
            try await admin(.delete, "/admin/faults")
            try await drainQueue()
        case .createContact:
            _ = try await app.contacts.createContact(name: step.marker)
        case .renameCreated:
            guard let contact = target else { return "skipped" }
            _ = try await app.contacts.rename(contactId: contact.id, to: step.marker)
            return contact.displayName
        case .circleWithCreated:
            let circle = try await app.contacts.createCircle(name: step.marker)
            guard let contact = try await lastCreated(by: step.user, seed: story.seed) else { return "skipped" }
            _ = try await app.contacts.addContact(contact.id, toCircle: circle.id)
            return contact.displayName
        case .ask:
            _ = try await app.chat.ask(step.marker)
        case .favorite:
            _ = try await app.favorites.setFavorite(story.slug, step.marker.count % 2 == 0)
        case .refusedFavorite:
            _ = try await app.favorites.setFavorite("no-such-funnel", true)
        case .purchase:
            do {
                try await app.contacts.subscribePremium()
            } catch .purchaseOutcomeUnknown {
                return "unknown"
            }
        }
        return nil
    }

    /// The contact of `user` made in this story that the device shows, newest marker first: what a user renames.
    func lastCreated(by user: Int, seed: UInt64) async throws -> Contact? {
        let marker = LifeStory.userMarker(seed: seed, user: user)
        let mine = try await app.contacts.contacts(limit: 500).value.contacts.filter { $0.displayName.hasPrefix(marker) }
        return mine.max { Int($0.displayName.dropFirst(marker.count)) ?? 0 < Int($1.displayName.dropFirst(marker.count)) ?? 0 }
    }

    /// Waits until the queue has nothing pending and no replay runs.
    func drainQueue() async throws {
        await app.queue.replay()
        try await AppLifeTests.waitForQueue(app, "the queue drained") { $0.pending.isEmpty && !$0.isReplaying }
    }

    /// Every text the signed-in user can see that carries another user's marker: the contacts, the circles, the
    /// chat history, the queue's pending and refused changes.
    func foreignTexts(user: Int, seed: UInt64) async throws -> [String] {
        var texts = try await app.contacts.contacts(limit: 500).value.contacts.map(\.displayName)
        texts += try await app.contacts.circles().value.map(\.name)
        for thread in try await app.chat.threads() {
            texts.append(thread.title)
            texts += try await app.chat.messages(threadId: thread.id).map(\.text)
        }
        let state = await app.queue.states().first { _ in true }
        let queued = (state?.pending ?? []) + (state?.failures ?? []).map(\.mutation)
        let held = await app.queue.pending() + app.queue.failures().map(\.mutation)
        texts += (queued + held).map(Self.text(of:))
        return Self.foreign(in: texts, user: user, seed: seed)
    }

    /// What a queued change says: its path and body (a REST change) or its variables (a GraphQL one).
    static func text(of mutation: QueuedMutation) -> String {
        switch mutation.request {
        case .rest(_, let path, _, let body): path + " " + String(decoding: body ?? Data(), as: UTF8.self)
        case .graphQL(_, let variables): "\(variables)"
        }
    }

    /// The texts of `texts` that carry the marker of a user other than `user`.
    static func foreign(in texts: [String], user: Int, seed: UInt64) -> [String] {
        let others = (0..<LifeStory.users.count).filter { $0 != user }.map { LifeStory.userMarker(seed: seed, user: $0) }
        return texts.filter { text in others.contains { text.contains($0) } }
    }

    func checkNothingForeign(user: Int, seed: UInt64) async throws {
        let foreign = try await foreignTexts(user: user, seed: seed)
        if !foreign.isEmpty { throw Broken(description: "user \(user) sees another user's data: \(foreign)") }
    }

    func checkNoFile(containing marker: String) throws {
        let files = Self.files(under: folder, containing: marker)
        if !files.isEmpty { throw Broken(description: "after the logout, \(marker) is still in \(files)") }
    }

    /// The files under `folder` whose bytes contain `marker`.
    static func files(under folder: URL, containing marker: String) -> [String] {
        let needle = Data(marker.utf8)
        let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { path in
            let data = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path) ?? Data()
            return data.range(of: needle) != nil || decodedStrings(in: data).contains { $0.range(of: needle) != nil }
        }
    }

    /// The quoted base64 strings of `data`, decoded: a queued change's body is kept so, in a JSON text that may
    /// sit in a database page.
    static func decodedStrings(in data: Data) -> [Data] {
        let text = String(decoding: data, as: Unicode.ASCII.self)
        guard let pattern = try? NSRegularExpression(pattern: #""([A-Za-z0-9+/]{8,}={0,2})""#) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return pattern.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).flatMap { Data(base64Encoded: String(text[$0])) }
        }
    }

    func admin(_ method: HTTPRequest.Method, _ path: String, _ json: String = "") async throws {
        let url = try #require(URL(string: baseURL.absoluteString + path))
        let response = try await URLSessionTransport().send(
            TransportRequest(
                method: method, url: url, headerFields: [.contentType: "application/json"], body: Data(json.utf8),
                timeout: TestDeadline.request))
        guard (200..<300).contains(response.status) else { throw Broken(description: "\(path) answered \(response.status)") }
    }
}

extension AppLifeStoryCrashTests {
    /// Only in the child process: launches the app through its one entry and lives the story from where the
    /// journal says the last process stopped, until its end or the kill. A change a kill cut is never made again.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the life story's child"))
    func childLivesTheStory() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let directory = URL(fileURLWithPath: path)
        let story = try JSONDecoder().decode(LifeStory.self, from: Data(contentsOf: directory.appendingPathComponent("story.json")))
        let baseURL = try #require(URL(string: try String(contentsOf: directory.appendingPathComponent("server.txt"), encoding: .utf8)))
        let journal = LifeJournal(directory: directory)
        let device = try LifeDevice(folder: directory.appendingPathComponent("device"), baseURL: baseURL)
        await device.app.composition.launch(offlineFirst: false)

        let lines = journal.lines
        let ended = Set(lines.filter { $0.phase == "end" }.map(\.index))
        let begun = Set(lines.map(\.index))
        do {
            for (index, step) in story.steps.enumerated() where !ended.contains(index) {
                if step.kind.isChange, begun.contains(index) { continue }
                // A rename's target is written before it is made, so that a kill in it still says which it was.
                let target = step.kind == .renameCreated ? try await device.lastCreated(by: step.user, seed: story.seed) : nil
                try journal.append(.init(index: index, phase: "begin", id: target?.displayName))
                let kept = try await device.perform(step, of: story, target: target)
                try journal.append(.init(index: index, phase: "end", id: kept))
                if await device.app.session.currentCredentials() != nil {
                    try await device.checkNothingForeign(user: step.user, seed: story.seed)
                }
            }
        } catch {
            // The parent reads why (the child's output is not kept).
            try? Data("step \(journal.lines.last?.index ?? -1): \(error)".utf8).write(to: directory.appendingPathComponent("failure.txt"))
            throw error
        }
    }
}
