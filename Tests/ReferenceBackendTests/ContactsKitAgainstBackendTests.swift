import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend
import Testing

/// ContactsKit against the reference backend's contacts API: a full sync then an incremental one, every
/// screen of the offline storage specification's "works offline" table with the network gone, changes
/// queued offline and applied once when it returns, and account deletion.
@Suite(.timeLimit(.minutes(10))) struct ContactsKitAgainstBackendTests {
    /// The kit on one "device", whose network can be cut.
    struct Device {
        let clock: ManualClock
        /// The device's caches directory (its data directory is beside it).
        let caches: URL
        let network: SwitchableTransport
        /// Where a test steps in: before a request leaves, and on its answer.
        let hook: HookTransport
        let transport: CountingTransport
        let tokens: StaticTokenProvider
        let rest: RESTClient
        let queue: MutationQueue
        let images: ImageCache
        let contacts: ContactsClient

        init(
            _ backend: ReferenceBackend, directory: URL, credentials: Credentials, syncPageSize: Int = 50,
            clock: ManualClock = ManualClock()
        ) {
            self.init(baseURL: backend.baseURL, directory: directory, credentials: credentials, syncPageSize: syncPageSize, clock: clock)
        }

        init(
            baseURL: URL, directory: URL, credentials: Credentials, syncPageSize: Int = 50, clock: ManualClock = ManualClock(),
            importChunkSize: Int = ContactsClient.importChunkSize
        ) {
            self.clock = clock
            var logger = Logger(label: "contacts-test")
            logger.logLevel = .critical
            network = SwitchableTransport(URLSessionTransport())
            hook = HookTransport(network)
            transport = CountingTransport(hook)
            tokens = StaticTokenProvider(credentials)
            caches = directory.appendingPathComponent("caches")
            let environment = CacheEnvironment(clock: clock, logger: logger, cachesDirectory: caches)
            rest = RESTClient(
                configuration: .init(
                    baseURL: baseURL, transport: transport, environment: environment, tokenProvider: tokens, retry: .none))
            queue = MutationQueue(
                configuration: .init(
                    directory: directory.appendingPathComponent("mutations"), tokenProvider: tokens, rest: rest, clock: clock,
                    sleeper: RecordingSleeper(), logger: logger))
            images = ImageCache(environment: environment)
            contacts = ContactsClient(
                rest: rest, queue: queue, environment: environment, images: images, syncPageSize: syncPageSize,
                importChunkSize: importChunkSize)
        }
    }

    /// Runs `body` with a fresh backend, Alice signed in, and a device of hers in a temporary folder. With
    /// `sharedClock` the backend's clock is the device's (its dates, such as the score's `computedAt`, on the
    /// same time line; its tokens then expire an hour after sign-in by that clock).
    func withDevice(sharedClock: Bool = false, _ body: (BackendFixture, Credentials, Device) async throws -> Void) async throws {
        let clock = ManualClock()
        let deviceTime: @Sendable () -> Date = { clock.now() }
        let realTime: @Sendable () -> Date = { Date() }
        let now = sharedClock ? deviceTime : realTime
        try await withBackend(5, now: now) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            try await body(fixture, alice, Device(fixture.backend, directory: folder.url, credentials: alice, clock: clock))
        }
    }

    @Test func aFullSyncThenAnIncrementalOneOfTenChangesInTwoRequests() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let full = await device.contacts.syncNow()
            #expect(full.mode == .full && full.outcome == .completed && full.counts["contacts"] == 120 && full.counts["circles"] == 5)
            #expect(full.pages == 3 && full.requests == 4, "three pages of 50, then the circles, score and suggestions in one")
            #expect(try await device.contacts.contacts(limit: 500).value.total == 120)

            for index in 0..<9 {
                let renamed = try await fixture.send(
                    .patch, "/contacts/c\(index)", json: #"{"displayName":"Renamed \#(index)"}"#, token: alice.accessToken)
                #expect(renamed.status == 200)
            }
            #expect(try await fixture.send(.delete, "/contacts/c9", json: "", token: alice.accessToken).status == 200)
            let before = device.transport.count()
            let incremental = await device.contacts.syncNow()
            #expect(incremental.mode == .incremental && incremental.counts["contacts"] == 9 && incremental.counts["deleted"] == 1)
            #expect(device.transport.count() - before == 2, "the changes, then the summary")
            #expect(try await device.contacts.contact(id: "c3").value?.displayName == "Renamed 3")
            #expect(try await device.contacts.contact(id: "c9").value == nil, "deleted on the server, gone from the device")
            #expect(try await device.contacts.search("renamed").total == 9)
        }
    }

    @Test func everyScreenWorksOfflineAndChangesWaitForTheNetworkThenApplyOnce() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let zoe = try #require(try await device.contacts.search("zoe").contacts.first)
            _ = try await device.contacts.thumbnail(of: zoe)

            device.network.isOffline = true
            // What works offline: list, detail, circles and members, score with its 30 days, search, photos cached.
            #expect(try await device.contacts.contacts(limit: 20).value.contacts.count == 20)
            #expect(try await device.contacts.contact(id: zoe.id).value == zoe)
            let circles = try await device.contacts.circles().value
            #expect(circles.count == 5 && circles.map(\.memberCount).reduce(0, +) == 120)
            #expect(try await device.contacts.score().value?.history.count == 30)
            let surname = try #require(zoe.displayName.split(separator: " ").last).prefix(3)
            #expect(try await device.contacts.search("ZOË \(surname)").contacts.contains(zoe), "search needs no network")
            #expect(try await device.contacts.search("(200) 000").contacts.first?.id == "c0")
            #expect(try await device.contacts.thumbnail(of: zoe)?.isEmpty == false, "the thumbnail from the image cache")
            // What requires connectivity: edits and suggestions queued, shown at once; subscribing refused.
            try await device.contacts.rename(contactId: zoe.id, to: "Zoë Offline")
            #expect(try await device.contacts.contact(id: zoe.id).value?.displayName == "Zoë Offline")
            let suggestion = try #require(try await device.contacts.suggestions().value.first)
            try await device.contacts.dismissSuggestion(id: suggestion.id)
            #expect(try await device.contacts.suggestions().value.contains(suggestion) == false)
            await #expect(throws: ContactsError.requiresConnection) { try await device.contacts.subscribePremium() }
            #expect(ContactsError.requiresConnection.localizedDescription == "Connect to purchase.")
            #expect(await device.queue.pending().count == 2)

            device.network.isOffline = false
            let replay = await device.queue.replay()
            let again = await device.queue.replay()
            #expect(replay.sent == 2)
            let left = await device.queue.pending()
            #expect(again.sent == 0 && left.isEmpty, "applied once: nothing left to send")
            let server = try await fixture.get("/contacts/\(zoe.id)", token: alice.accessToken)
            #expect(String(decoding: server.body, as: UTF8.self).contains("Zoë Offline"), "applied on the server")
            let pending = try await fixture.get("/suggestions?status=pending", token: alice.accessToken)
            #expect(!String(decoding: pending.body, as: UTF8.self).contains("\"\(suggestion.id)\""), "dismissed on the server, once")
            #expect(await device.contacts.syncNow().mode == .incremental)
            #expect(try await device.contacts.contact(id: zoe.id).value?.displayName == "Zoë Offline")
        }
    }

    @Test func oldDataIsLabelledAsTheSpecificationSays() async throws {
        try await withDevice(sharedClock: true) { (fixture, alice, device) async throws in
            await device.contacts.syncNow()
            #expect(try await device.contacts.contact(id: "c1").label == nil)
            #expect(try await device.contacts.score().label == nil)
            // At the boundary: a day old exactly is not past the day; a second more is.
            device.clock.advance(by: 86_400)
            #expect(try await device.contacts.contact(id: "c1").label == nil)
            device.clock.advance(by: 1)
            #expect(try await device.contacts.contact(id: "c1").label == "Last updated 1 d ago")
            device.clock.advance(by: 3_600)
            #expect(try await device.contacts.contact(id: "c1").label == "Last updated 1 d ago")
            #expect(try await device.contacts.score().label == "Estimated · last updated 1 d ago", "measured from the score's computedAt")
            #expect(try await device.contacts.contacts().label == nil, "a stale list refreshes silently")
        }
    }

    @Test func aRepeatedIdempotencyKeyGetsTheFirstAnswerAndChangesNothing() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            _ = try await fixture.get("/contacts?limit=1", token: alice.accessToken)
            func rename(_ name: String) async throws -> TransportResponse {
                let url = try #require(URL(string: fixture.backend.baseURL.absoluteString + "/contacts/c4"))
                return try await fixture.transport.send(
                    TransportRequest(
                        method: .patch, url: url,
                        headerFields: [
                            .contentType: "application/json", .authorization: "Bearer \(alice.accessToken)",
                            try #require(HTTPField.Name("Idempotency-Key")): "rename-c4-once",
                        ], body: Data(#"{"displayName":"\#(name)"}"#.utf8), timeout: TestDeadline.request))
            }
            let first = try await rename("First")
            let repeated = try await rename("First")
            #expect(first.status == 200 && repeated.status == 200 && repeated.body == first.body)
            #expect(repeated.headerFields[try #require(HTTPField.Name("Idempotent-Replayed"))] == "true")
            // The key with another request is refused, not answered with the first request's answer.
            #expect(try await rename("Second").status == 422)
            let changes = try await fixture.get("/contacts/changes?since=0", token: alice.accessToken)
            #expect(changes.headerFields[try #require(HTTPField.Name("X-Changes-Token"))] == "1", "one change, not two")
            #expect(String(decoding: try await fixture.get("/contacts/c4", token: alice.accessToken).body, as: UTF8.self).contains("First"))
        }
    }

    /// Users share contact ids (`c4` exists in every address book), so an id alone must never reach
    /// another's: Bob's edit, deletion and idempotency key change only his own book and feed.
    @Test func anotherUsersChangesNeverReachThisAddressBook() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            await device.contacts.syncNow()
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            #expect(
                try await fixture.send(.patch, "/contacts/c4", json: #"{"displayName":"Bob's edit"}"#, token: bob.accessToken).status == 200
            )
            #expect(try await fixture.send(.delete, "/contacts/c5", json: "", token: bob.accessToken).status == 200)
            let sync = await device.contacts.syncNow()
            #expect(sync.mode == .incremental && sync.counts["contacts"] == 0 && sync.counts["deleted"] == nil)
            #expect(try await device.contacts.contact(id: "c4").value?.displayName != "Bob's edit")
            #expect(try await device.contacts.contact(id: "c5").value != nil)
            let alicesFeed = try await fixture.get("/contacts/changes?since=0", token: alice.accessToken)
            #expect(!String(decoding: alicesFeed.body, as: UTF8.self).contains("Bob's edit"))
            #expect(
                String(decoding: try await fixture.get("/contacts/c4", token: bob.accessToken).body, as: UTF8.self).contains("Bob's edit"))
        }
    }

    @Test func accountDeletionLeavesNoContactsFile() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            await device.contacts.syncNow()
            try device.contacts.erase(userId: alice.userId)
            let folder = device.contacts.store.directory.path
            // The folder may be gone with the user's files; when it is there, no address book is left in it.
            let files = FileManager.default.fileExists(atPath: folder) ? try FileManager.default.contentsOfDirectory(atPath: folder) : []
            #expect(files.filter { $0.hasPrefix("contacts-") }.isEmpty, "left: \(files)")
        }
    }
}

/// A transport whose network a test can cut: offline, every request fails as URLSession's would.
final class SwitchableTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let offline = Locked(false)

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        if isOffline { throw .offline(reason: "the test cut the network") }
        return try await base.send(request)
    }
}
