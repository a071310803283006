import APICore
import APICoreOffline
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import Testing

/// The launch pass of the address book's queue follower (a launch or a sign-in calls `followQueue()`) undoes a change
/// a killed process recorded on the device and never queued. It must never take a change this process is recording,
/// which is kept on the device and not queued for a moment, for one of those (REQ OFF-21).
@Suite(.timeLimit(.minutes(10))) struct ContactsLaunchPassTests {
    typealias Device = ContactsKitAgainstBackendTests.Device

    func withDevice(_ body: (BackendFixture, Credentials, Device) async throws -> Void) async throws {
        try await ContactsKitAgainstBackendTests().withDevice(body)
    }

    /// The pass is run by the same client, or by another over the same files (a composition built again).
    @Test(arguments: [false, true]) func aLaunchPassBesideAChangeNotQueuedYetLeavesItApplied(byAnotherClient: Bool) async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let original = try #require(try await device.contacts.contact(id: "c8").value)
            // The rename reads who is signed in twice, records itself on the device, then asks the queue what it holds
            // (a third read): the launch pass runs there, the rename on the device and not in the queue.
            let contacts =
                byAnotherClient
                ? Device(
                    fixture.backend, directory: device.caches.deletingLastPathComponent(), credentials: alice, clock: device.clock
                ).contacts
                : device.contacts
            let queue = device.queue
            let seen = Locked<(applied: Bool, queued: Int)?>(nil)
            device.tokens.beforeAnswering(afterCalls: 2) {
                let shown = try? await contacts.contact(id: "c8").value?.displayName
                let queued = await queue.pending().count
                await contacts.followQueue()
                seen.withLock { $0 = (shown == "Kept on the device", queued) }
            }
            try await device.contacts.rename(contactId: "c8", to: "Kept on the device")
            let beside = try #require(seen.withLock { $0 }, "the launch pass never ran beside the rename")
            #expect(beside.applied && beside.queued == 0, "the pass did not run between the record and the queue: \(beside)")
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == "Kept on the device")
            #expect(await device.queue.pending().map(\.name) == [ContactsClient.Mutation.edit])
            // Sent, the change stays: nothing undid it.
            #expect(await device.queue.replay().sent == 1)
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == "Kept on the device")
            #expect(original.displayName != "Kept on the device")
        }
    }
}
