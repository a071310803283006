import APICore
import APICoreOffline
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import Testing

/// Every action of the offline storage specification's tables, made offline: shown at once and marked
/// pending, queued, applied once when the network returns, visible on the server, and its handle moving
/// from pending to sent (or refused, and undone).
@Suite(.timeLimit(.minutes(10))) struct ContactsActionsTests {
    let kit = ContactsKitAgainstBackendTests()

    @Test func eachActionMadeOfflineIsAppliedOnceAndItsHandleMovesToSent() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            await contacts.followQueue()
            device.network.isOffline = true

            let created = try await contacts.createContact(
                name: "Nadia Offline", phones: ["+33 1 23 45 67 89"], emails: ["nadia@example.com"])
            let newId = try #require(created.recordId)
            let edited = try await contacts.editContact(id: "c2", ContactEdit(displayName: "Edited", phones: ["+1 555 0199"], emails: []))
            let deleted = try await contacts.deleteContact(id: "c3")
            let added = try await contacts.addContact("c4", toCircle: "circle-2")
            let removed = try await contacts.removeContact("c6", fromCircle: "circle-2")
            let restyled = try await contacts.restyleCircle(id: "circle-2", emoji: "🎸", color: "#FF8800")
            let handles = [created, edited, deleted, added, removed, restyled]

            // Shown at once, offline, and marked as waiting.
            #expect(try await contacts.contact(id: newId).value?.hasPendingChange == true)
            #expect(
                try await contacts.contact(id: "c2").value.map { ($0.displayName, $0.phones, $0.hasPendingChange) } ?? ("", [], false) == (
                    "Edited", ["+1 555 0199"], true
                ))
            #expect(try await contacts.contact(id: "c3").value == nil)
            let members = try await contacts.members(ofCircle: "circle-2").value.map(\.id)
            #expect(members.contains("c4") && !members.contains("c6"), "\(members)")
            let circle = try #require(try await contacts.circles().value.first { $0.id == "circle-2" })
            #expect(circle.emoji == "🎸" && circle.color == "#FF8800" && circle.hasPendingChange)
            for handle in handles { #expect(try await contacts.changeState(handle) == .pending, "\(handle.mutation)") }
            #expect(await device.queue.pending().count == handles.count)

            device.network.isOffline = false
            let replay = await device.queue.replay()
            #expect(replay.sent == handles.count && replay.refused.isEmpty, "\(replay)")
            #expect(await device.queue.replay().sent == 0, "applied once")
            try await waitUntil("every handle sent") {
                var states: [ContactsChange.State?] = []
                for handle in handles { states.append(try await contacts.changeState(handle)) }
                return states.allSatisfy { $0 == .sent }
            }
            #expect(try await contacts.contact(id: "c2").value?.hasPendingChange == false, "no longer waiting")
            let sentCircle = try #require(try await contacts.circles().value.first { $0.id == "circle-2" })
            #expect(
                sentCircle.memberCount == circle.memberCount && !sentCircle.hasPendingChange, "sent, the count kept until the next summary")

            // Visible on the server.
            func body(_ path: String) async throws -> String {
                String(decoding: try await fixture.get(path, token: alice.accessToken).body, as: UTF8.self)
            }
            #expect(try await body("/contacts/\(newId)").contains("Nadia Offline"))
            let c2 = try await body("/contacts/c2")
            #expect(c2.contains("Edited") && c2.contains("+1 555 0199"))
            #expect(try await fixture.get("/contacts/c3", token: alice.accessToken).status == 404)
            #expect(try await body("/contacts/c4").contains("circle-2"))
            #expect(!(try await body("/contacts/c6")).contains("circle-2"))
            let circles = try await body("/circles")
            #expect(circles.contains("🎸") && circles.contains("#FF8800"))

            // The next sync agrees with the device, the member count included.
            #expect(await contacts.syncNow().isComplete)
            let synced = try #require(try await contacts.circles().value.first { $0.id == "circle-2" })
            #expect(
                synced.memberCount == circle.memberCount && !synced.hasPendingChange,
                "server count \(synced.memberCount), device \(circle.memberCount)")
            #expect(try await contacts.contact(id: newId).value?.displayName == "Nadia Offline")
            // Every circle's count, as the server keeps it, is its members: deletions and moves included.
            for circle in try await contacts.circles().value {
                #expect(try await contacts.members(ofCircle: circle.id).value.count == circle.memberCount, "\(circle.id)")
            }
        }
    }

    @Test func aRefusedActionsHandleSaysRefusedAndItsEffectIsUndone() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            await contacts.followQueue()
            device.network.isOffline = true
            let refused = try await contacts.addContact("c4", toCircle: "circle-2")
            #expect(try await contacts.contact(id: "c4").value?.circles.contains("circle-2") == true)
            let state = ObservationRecorder(try await contacts.observeChange(refused))
            try await state.wait("pending") { $0.last == .pending }
            device.network.isOffline = false
            #expect(try await fixture.send(.delete, "/contacts/c4", json: "", token: alice.accessToken).status == 200)
            #expect(await device.queue.replay().refused.count == 1)
            try await state.wait("refused") { $0.last == .refused }
            #expect(try await contacts.contact(id: "c4").value == nil, "undone with the server's value: deleted there")
            #expect(try await contacts.circles().value.first { $0.id == "circle-2" }?.hasPendingChange == false)
        }
    }

    @Test func addingAMemberAlreadyInTheCircleCountsNothing() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            let member = try #require(try await contacts.members(ofCircle: "circle-3").value.first)
            let before = try #require(try await contacts.circles().value.first { $0.id == "circle-3" }).memberCount
            device.network.isOffline = true
            try await contacts.addContact(member.id, toCircle: "circle-3")
            let after = try #require(try await contacts.circles().value.first { $0.id == "circle-3" })
            #expect(after.memberCount == before && after.hasPendingChange, "\(before) then \(after.memberCount)")
            let outsider = try #require(try await contacts.contacts(limit: 500).value.contacts.first { !$0.circles.contains("circle-3") })
            let added = try await contacts.addContact(outsider.id, toCircle: "circle-3")
            #expect(try await contacts.circles().value.first { $0.id == "circle-3" }?.memberCount == before + 1, "positive control")
            await contacts.followQueue()
            device.network.isOffline = false
            #expect(await device.queue.replay().sent == 2)
            try await waitUntil("the add sent") { try await contacts.changeState(added) == .sent }
            let sent = try #require(try await contacts.circles().value.first { $0.id == "circle-3" })
            #expect(sent.memberCount == before + 1 && !sent.hasPendingChange, "sent: the count kept until the next summary")
            // The server counts the same: one more member, the no-op add counting nothing there either.
            #expect(await contacts.syncNow().isComplete)
            let synced = try #require(try await contacts.circles().value.first { $0.id == "circle-3" })
            #expect(synced.memberCount == before + 1 && !synced.hasPendingChange, "the server's count: \(synced.memberCount)")
        }
    }

    @Test func anActionOnARecordTheDeviceNoLongerHasIsNotFound() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            await #expect(throws: ContactsError.notFound) { try await contacts.editContact(id: "c404", ContactEdit(displayName: "x")) }
            await #expect(throws: ContactsError.notFound) { try await contacts.deleteContact(id: "c404") }
            await #expect(throws: ContactsError.notFound) { try await contacts.addContact("c1", toCircle: "circle-404") }
            await #expect(throws: ContactsError.notFound) {
                try await contacts.restyleCircle(id: "circle-404", emoji: nil, color: "#000000")
            }
            #expect(await device.queue.pending().isEmpty, "nothing queued")
            // Positive control: the same actions on records the device has are queued.
            try await contacts.addContact("c1", toCircle: "circle-2")
            #expect(await device.queue.pending().count == 1)
        }
    }
}
