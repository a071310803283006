import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import Testing

/// The screen models on the observing reads: what a SwiftUI screen binds to, updated on the main actor by a
/// sync, an offline change and a logout.
@Suite(.timeLimit(.minutes(10))) struct ContactsModelsTests {
    let kit = ContactsKitAgainstBackendTests()

    /// Waits until `condition`, read on the main actor, holds.
    private func waitOnMain(_ description: String, _ condition: @escaping @MainActor @Sendable () -> Bool) async throws {
        try await waitUntil(description) { await MainActor.run { condition() } }
    }

    @Test func theListModelFollowsTheSyncAnOfflineRenameAndTheLogout() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let list = await ContactsListModel(client: device.contacts, limit: 20)
            let sync = await ContactsSyncModel(client: device.contacts)
            let following = Task { await list.run() }
            let syncing = Task { await sync.run() }
            defer {
                following.cancel()
                syncing.cancel()
            }
            try await waitOnMain("the empty list before the first sync") { list.isLoaded }
            #expect(await MainActor.run { list.contacts.isEmpty && list.syncedAt == nil && !sync.state.isFirstSyncFinished })
            await sync.syncNow()
            try await waitOnMain("twenty rows of 120") { list.total == 120 && list.contacts.count == 20 }
            try await waitOnMain("the sync model's completion") { sync.state.isFirstSyncFinished }
            #expect(await MainActor.run { list.syncedAt != nil && list.error == nil })

            device.network.isOffline = true
            let first = try #require(await MainActor.run { list.contacts.first })
            let detail = await ContactDetailModel(client: device.contacts, contactId: first.id)
            let detailing = Task { await detail.run() }
            defer { detailing.cancel() }
            try await waitOnMain("the detail") { detail.contact?.id == first.id }
            try await detail.rename(to: "Aaron Offline")
            try await waitOnMain("the rename on both screens, marked waiting") {
                detail.contact?.displayName == "Aaron Offline" && detail.contact?.hasPendingChange == true
                    && list.contacts.contains { $0.displayName == "Aaron Offline" && $0.hasPendingChange }
            }

            try await device.contacts.store.clearAll()
            try await waitOnMain("both screens emptied by the logout") { list.contacts.isEmpty && list.total == 0 && detail.contact == nil }
        }
    }

    @Test func theListModelRunsASearch() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let list = await ContactsListModel(client: device.contacts)
            let searching = Task { await list.run(query: "(200) 000") }
            defer { searching.cancel() }
            try await waitOnMain("the phone number's match") { list.contacts.first?.id == "c0" }
        }
    }
}
