import APICore
import APICoreOffline
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// Promises of the address book's sync that one-line breaks survived (held-out mutants), each tested against the
/// reference backend: the thirty days offline, the token a run adopts, "Last updated", the order kept changes are
/// applied in, and a refusal undone whatever the timestamps say (REQ OFF-10, OFF-14, CON-2, CON-3, CON-5).
@Suite(.timeLimit(.minutes(10))) struct ContactsSyncPromiseTests {
    typealias Device = ContactsKitAgainstBackendTests.Device

    func withDevice(_ body: (BackendFixture, Credentials, Device) async throws -> Void) async throws {
        try await ContactsKitAgainstBackendTests().withDevice(body)
    }

    /// Thirty days exactly after the last completed sync, the next is still incremental; a second later it is full.
    @Test func thirtyDaysOfflineAreIncrementalAndASecondMoreIsFull() async throws {
        try await withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().mode == .full)
            device.clock.advance(by: 30 * 86_400)
            #expect(await device.contacts.syncNow().mode == .incremental, "thirty days to the second")
            device.clock.advance(by: 30 * 86_400 + 1)
            let full = await device.contacts.syncNow()
            #expect(full.mode == .full && full.outcome == .completed, "thirty days and a second")
        }
    }

    /// A contact the server changes while a full sync pages, after its page came, arrives with the next
    /// incremental sync: the run adopts the change counter of its first page, not of its last.
    @Test func aContactChangedOnTheServerWhileASyncPagesArrivesWithTheNextIncrementalSync() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let changed = Locked(false)
            device.hook.before { request, _ in
                guard request.url.path == "/contacts", request.url.query?.contains("after=") == true,
                    !changed.withLock({ $0 })
                else { return nil }
                changed.withLock { $0 = true }
                _ = try? await fixture.send(.patch, "/contacts/c0", json: #"{"displayName":"Changed meanwhile"}"#, token: alice.accessToken)
                return nil
            }
            let full = await device.contacts.syncNow()
            #expect(full.mode == .full && full.outcome == .completed && full.pages > 1)
            #expect(changed.withLock { $0 })
            #expect(try await device.contacts.contact(id: "c0").value?.displayName != "Changed meanwhile", "its page came before")
            device.hook.before(nil)
            #expect(await device.contacts.syncNow().mode == .incremental)
            #expect(try await device.contacts.contact(id: "c0").value?.displayName == "Changed meanwhile")
        }
    }

    /// "Last updated" counts from the last completed sync, an incremental one too.
    @Test func lastUpdatedCountsFromTheLastCompletedSyncAnIncrementalOneIncluded() async throws {
        try await withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().mode == .full)
            device.clock.advance(by: 2 * 86_400)
            let incrementalAt = device.clock.now()
            #expect(await device.contacts.syncNow().mode == .incremental)
            device.clock.advance(by: 3_600)
            let list = try await device.contacts.contacts()
            #expect(list.syncedAt == incrementalAt)
            #expect(list.staleLabel == nil, "an hour after the incremental sync: \(String(describing: list.staleLabel))")
        }
    }

    /// Two offline renames of one contact: after a sync (the queue not yet sent), the later one shows.
    @Test func keptChangesAreAppliedOverEachPageInTheOrderTheyWereMade() async throws {
        try await withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c3", to: "First")
            try await device.contacts.rename(contactId: "c3", to: "Second")
            try await device.contacts.rename(contactId: "c4", to: "Only")
            device.network.isOffline = false
            device.clock.advance(by: 30 * 86_400 + 1)
            #expect(await device.contacts.syncNow().mode == .full)
            #expect(try await device.contacts.contact(id: "c3").value?.displayName == "Second")
            #expect(await device.contacts.syncNow().mode == .incremental)
            #expect(try await device.contacts.contact(id: "c3").value?.displayName == "Second")
            #expect(try await device.contacts.contact(id: "c4").value?.displayName == "Only")
        }
    }

    /// A rename the server refuses is undone though the device's copy carries the server's own timestamp (an
    /// edit keeps it): the unconfirmed name never counts as newer than the server's copy.
    @Test func aRefusedRenameIsUndoneThoughTheServersCopyCarriesTheSameTimestamp() async throws {
        try await withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            await device.contacts.followQueue()
            let original = try #require(try await device.contacts.contact(id: "c8").value)
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c8", to: "Never confirmed")
            let shown = try #require(try await device.contacts.contact(id: "c8").value)
            #expect(shown.displayName == "Never confirmed" && shown.updatedAt == original.updatedAt)
            device.network.isOffline = false
            device.hook.answer { request in
                guard request.method == .patch, request.url.path == "/contacts/c8" else { return nil }
                return TransportResponse(
                    status: 422, headerFields: [.contentType: "application/json"],
                    body: Data(#"{"error":{"code":"INVALID_NAME","message":"Refused."}}"#.utf8))
            }
            #expect(await device.queue.replay().refused.count == 1)
            try await waitUntil("the refused rename undone") {
                try await device.contacts.contact(id: "c8").value?.displayName == original.displayName
            }
        }
    }
}
