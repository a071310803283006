import APICore
import APICoreOffline
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

/// Records created offline reach a server that assigns its own ids: the queue rewrites every later change to
/// say the server's id before it is sent, and the kit renames what it stores. Through the real composition
/// against the reference backend in its own-ids mode.
@Suite(.timeLimit(.minutes(10))) struct ClientIdRemapTests {
    static let offline = #"[{"pathPrefix":"/contacts","dropConnection":true},{"pathPrefix":"/circles","dropConnection":true}]"#

    @Test func aContactAndACircleCreatedOfflineThenEditedAndJoinedReachTheServerUnderItsIds() async throws {
        try await withBackend(5, assignsIds: true) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                logger: AppLifeTests.quiet)
            let user = try await app.signIn()
            #expect(await app.contacts.syncNow().isComplete)
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.offline).status == 204)
            let clientId = try #require(try await app.contacts.createContact(name: "Ana").recordId)
            try await app.contacts.rename(contactId: clientId, to: "Ana María")
            let circle = try await app.contacts.createCircle(name: "Climbing partners")
            try await app.contacts.addContact(clientId, toCircle: circle.id)
            try await AppLifeTests.waitForQueue(app, "four changes pending") { $0.pending.count == 4 }
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            await app.queue.replay()
            try await AppLifeTests.waitForQueue(app, "every change sent") { $0.pending.isEmpty && !$0.isReplaying }
            let refused = await app.queue.failures()
            #expect(refused.isEmpty, "a change was refused: \(refused)")

            // The device renamed both, and a sync brings no second copy.
            try await waitUntil("the device renamed the contact") {
                try await app.contacts.contact(id: clientId).value?.id.hasPrefix("srv-") == true
            }
            // Before any sync replaces them, the device's own circles say the server's id.
            try await waitUntil("the device renamed the circle") {
                try await app.contacts.circles().value.contains { $0.name == "Climbing partners" && $0.id.hasPrefix("srv-") }
            }
            #expect(await app.contacts.syncNow().isComplete)
            let anas = try await app.contacts.contacts(limit: 500).value.contacts.filter { $0.displayName == "Ana María" }
            let ana = try #require(anas.first)
            #expect(anas.count == 1 && ana.id.hasPrefix("srv-"), "\(anas.map(\.id))")
            let climbing = try await app.contacts.circles().value.filter { $0.name == "Climbing partners" }
            #expect(climbing.count == 1, "\(climbing.map(\.id))")
            let family = try #require(climbing.first)
            #expect(family.id.hasPrefix("srv-"))
            #expect(ana.circles == [family.id])
            let remaps = await app.queue.idRemaps(of: user)
            #expect(remaps.isEmpty, "the kit settled its remaps")

            // On the server: the contact under its id, renamed, in the circle.
            let token = try await fixture.token()
            let answer = try await fixture.get("/contacts/\(ana.id)", token: token)
            let server = try JSONValue.parse(answer.body)["data"]
            #expect(answer.status == 200 && server?["displayName"]?.stringValue == "Ana María")
            #expect(server?["circles"] == .array([.string(family.id)]))

            // A screen that read the contact before the rename still holds the device's id: it still shows the
            // contact and its circle's members, and its edit reaches the record under the server's.
            #expect(try await app.contacts.contact(id: clientId).value?.id == ana.id)
            #expect(try await app.contacts.members(ofCircle: circle.id).value.map(\.id) == [ana.id])
            try await app.contacts.rename(contactId: clientId, to: "Ana María López")
            #expect(
                try await app.contacts.contact(id: ana.id).value?.displayName == "Ana María López",
                "the edit under the device's id shows on the device at once, on the record under the server's")
            await app.queue.replay()
            try await AppLifeTests.waitForQueue(app, "the late edit sent") { $0.pending.isEmpty && !$0.isReplaying }
            let late = try await fixture.get("/contacts/\(ana.id)", token: token)
            #expect(try JSONValue.parse(late.body)["data"]?["displayName"]?.stringValue == "Ana María López")
            #expect(await app.queue.failures().isEmpty)
        }
    }

    /// A change enqueued after the server renamed a record (before its kit renamed it on the device) goes with
    /// the server's id; a remap stays until its kit settles it (here no kit: the mutations are the test's own).
    @Test func aChangeQueuedAfterTheServerRenamedARecordSaysTheServersId() async throws {
        try await withBackend(5, assignsIds: true) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                logger: AppLifeTests.quiet)
            let user = try await app.signIn()
            func send(_ method: HTTPRequest.Method, _ path: String, _ json: String, name: String, creates: String? = nil) async throws {
                try await app.queue.enqueue(
                    .rest(method: method, path: path, headerFields: [.contentType: "application/json"], body: Data(json.utf8)),
                    name: name, creates: creates)
                await app.queue.replay()
                try await AppLifeTests.waitForQueue(app, "\(name) sent") { $0.pending.isEmpty && !$0.isReplaying }
            }
            try await send(
                .post, "/contacts", #"{"id":"contact-x1","displayName":"Zed","phones":[],"emails":[]}"#, name: "CreateByHand",
                creates: "contact-x1")
            let remap = try #require(await app.queue.idRemaps(of: user).first)
            #expect(remap.clientId == "contact-x1" && remap.serverId.hasPrefix("srv-") && remap.mutation == "CreateByHand")
            try await send(.patch, "/contacts/contact-x1", #"{"displayName":"Zed Two"}"#, name: "RenameByHand")
            let refused = await app.queue.failures()
            #expect(refused.isEmpty, "\(refused)")
            let answer = try await fixture.get("/contacts/\(remap.serverId)", token: try await fixture.token())
            #expect(try JSONValue.parse(answer.body)["data"]?["displayName"]?.stringValue == "Zed Two")
            await app.queue.settleRemap(remap, of: user)
            let left = await app.queue.idRemaps(of: user)
            #expect(left.isEmpty)
        }
    }
}
