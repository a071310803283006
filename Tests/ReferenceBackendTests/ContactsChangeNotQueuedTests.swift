import APICore
import APICoreOffline
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import MIBCore
import Testing

/// A change the address book recorded on the device and the queue then refused to take (another user signed in, the
/// queue's file not writable) is never sent, so it must not stay applied: it is undone at once when its user is still
/// signed in, else by that user's next pass of the queue's follower, and, offline, by the first pass that can fetch
/// the server's values (REQ OFF-21).
@Suite(.timeLimit(.minutes(10))) struct ContactsChangeNotQueuedTests {
    typealias Device = ContactsKitAgainstBackendTests.Device

    func withDevice(_ body: (BackendFixture, Credentials, Device) async throws -> Void) async throws {
        try await ContactsKitAgainstBackendTests().withDevice(body)
    }

    /// The rename reads who is signed in twice, records itself on the device, asks the queue what it holds (a third
    /// read), then queues itself (a fourth): Bob answers that fourth read only, Alice every read after it.
    func refuseTheQueueOnce(_ device: Device, alice: Credentials, fixture: BackendFixture) async throws {
        let bob = try await fixture.credentials("bob@example.com", "Password2")
        device.tokens.set(bob, afterCalls: 3)
        device.tokens.beforeAnswering(afterCalls: 4) { device.tokens.set(alice) }
        await #expect(throws: ContactsError.signedOut) { try await device.contacts.rename(contactId: "c8", to: "Never queued") }
        #expect(!device.tokens.hasPendingSwitch, "the queue never read who is signed in as Bob")
    }

    /// Alice's address book synced; c8's name as the server has it.
    func syncedName(_ device: Device) async throws -> String {
        #expect(await device.contacts.syncNow().isComplete)
        return try #require(try await device.contacts.contact(id: "c8").value?.displayName)
    }

    /// Counts the address book's "not sent" reports from now on.
    func countNotSent(_ device: Device) -> (count: Locked<Int>, listening: Task<Void, Never>) {
        let events = device.contacts.events()
        let count = Locked(0)
        let listening = Task {
            for await event in events {
                if case .changeNotSent = event { count.withLock { $0 += 1 } }
            }
        }
        return (count, listening)
    }

    @Test func aChangeTheQueueRefusedIsUndoneAtOnceWhileItsUserIsSignedIn() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let original = try await syncedName(device)
            let notSent = countNotSent(device)
            defer { notSent.listening.cancel() }
            try await refuseTheQueueOnce(device, alice: alice, fixture: fixture)
            try await waitUntil("the rename undone on the device") {
                try await device.contacts.contact(id: "c8").value?.displayName == original
            }
            #expect(await device.queue.pending().isEmpty)
            try await waitUntil("the undo reported") { notSent.count.withLock { $0 } == 1 }
        }
    }

    /// Signed out between the record and the queue: nothing can be undone for Alice then; her next sign-in's launch pass
    /// undoes it and says so.
    @Test func aChangeTheQueueRefusedAfterASignOutIsUndoneAtTheNextSignIn() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let original = try await syncedName(device)
            device.tokens.set(nil, afterCalls: 3)
            await #expect(throws: ContactsError.signedOut) { try await device.contacts.rename(contactId: "c8", to: "Never queued") }
            device.tokens.set(alice)
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == "Never queued", "kept for the next pass")
            let notSent = countNotSent(device)
            defer { notSent.listening.cancel() }
            await device.contacts.followQueue()
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == original)
            #expect(await device.queue.pending().isEmpty)
            try await waitUntil("the pass to report the change it undid") { notSent.count.withLock { $0 } == 1 }
        }
    }

    /// Offline, the server's values cannot be fetched, so neither the refusal's own undo nor the follower's pass can
    /// undo the rename; the first pass after the network is back does (the queue moving on a later change).
    @Test func aChangeTheQueueRefusedOfflineIsUndoneByTheFirstPassBackOnline() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let original = try await syncedName(device)
            await device.contacts.followQueue()
            device.network.isOffline = true
            let tried = device.transport.count("/contacts/c8")
            try await refuseTheQueueOnce(device, alice: alice, fixture: fixture)
            try await waitUntil("the refusal's own undo to ask the server for c8, offline") {
                device.transport.count("/contacts/c8") > tried
            }
            try await device.contacts.rename(contactId: "c7", to: "Queued offline")
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == "Never queued", "offline: kept")
            let notSent = countNotSent(device)
            defer { notSent.listening.cancel() }
            device.network.isOffline = false
            #expect(await device.queue.replay().sent == 1)
            try await waitUntil("a pass back online to undo the rename") {
                try await device.contacts.contact(id: "c8").value?.displayName == original
            }
            try await waitUntil("that pass to report it") { notSent.count.withLock { $0 } == 1 }
            #expect(try await device.contacts.contact(id: "c7").value?.displayName == "Queued offline", "the queued one stays")
        }
    }
}
