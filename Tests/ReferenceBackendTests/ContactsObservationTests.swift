import APICore
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import Testing

/// ContactsKit's observing reads against the reference backend: each yields the value now, a new one after a
/// sync page and after an offline change, and the empty value (then nothing) after a logout.
@Suite(.timeLimit(.minutes(10))) struct ContactsObservationTests {
    let kit = ContactsKitAgainstBackendTests()

    @Test func theObservedListFollowsTheSyncPagesAnOfflineEditAndEndsAtLogout() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let list = ObservationRecorder(try await device.contacts.observeContacts(limit: 500))
            try await list.wait("the empty list before the first sync") { $0.last?.value.total == 0 }
            #expect(await device.contacts.syncNow().isComplete)
            try await list.wait("the whole address book") { $0.last?.value.total == 120 }
            #expect(
                list.values.allSatisfy { [0, 50, 100, 120].contains($0.value.total) }, "only whole pages: \(list.values.map(\.value.total))"
            )
            #expect(list.values.last?.syncedAt != nil)

            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c3", to: "Renamed offline")
            try await list.wait("the offline rename, marked pending") { values in
                values.last?.value.contacts.contains { $0.id == "c3" && $0.displayName == "Renamed offline" && $0.hasPendingChange } == true
            }
            let others = try #require(list.values.last).value.contacts.filter { $0.id != "c3" }
            #expect(!others.isEmpty && others.allSatisfy { !$0.hasPendingChange }, "only the changed row is marked")

            try await device.contacts.store.clearAll()
            try await list.waitUntilFinished()
            #expect(list.values.last?.value.total == 0, "nothing after the logout")
        }
    }

    @Test func everyReadHasAnObservingFormThatSeesTheSyncAndAnOfflineChange() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let contacts = device.contacts
            let detail = ObservationRecorder(try await contacts.observeContact(id: "c5"))
            let circles = ObservationRecorder(try await contacts.observeCircles())
            let members = ObservationRecorder(try await contacts.observeMembers(ofCircle: "circle-1"))
            let score = ObservationRecorder(try await contacts.observeScore())
            let suggestions = ObservationRecorder(try await contacts.observeSuggestions())
            let profile = ObservationRecorder(try await contacts.observeProfile())
            #expect(await contacts.syncNow().isComplete)
            try await detail.wait("c5 after the sync") { $0.last?.value?.id == "c5" }
            try await circles.wait("five circles") { $0.last?.value.count == 5 }
            let family = try #require(circles.values.last?.value.first { $0.id == "circle-1" })
            try await members.wait("the first circle's members") { $0.last?.value.count == family.memberCount }
            #expect(family.memberCount > 0)
            try await score.wait("the score with its history") { $0.last?.value?.history.count == 30 }
            try await suggestions.wait("the pending suggestions") { $0.last?.value.isEmpty == false }
            try await profile.wait("the profile") { $0.last?.value != nil }

            device.network.isOffline = true
            let outsider = try #require(try await contacts.contacts(limit: 500).value.contacts.first { !$0.circles.contains("circle-1") })
            try await contacts.addContact(outsider.id, toCircle: "circle-1")
            try await members.wait("the added member") { $0.last?.value.contains { $0.id == outsider.id && $0.hasPendingChange } == true }
            try await circles.wait("the first circle counted one more, marked pending") { values in
                values.last?.value.first { $0.id == "circle-1" }.map { $0.memberCount == family.memberCount + 1 && $0.hasPendingChange }
                    == true
            }
            try await contacts.editContact(id: "c5", ContactEdit(phones: ["+1 555 0100"]))
            try await detail.wait("c5's new phone") { $0.last?.value?.phones == ["+1 555 0100"] }
            let dismissed = try #require(suggestions.values.last?.value.first)
            try await contacts.dismissSuggestion(id: dismissed.id)
            try await suggestions.wait("the dismissed suggestion gone") { $0.last?.value.contains { $0.id == dismissed.id } == false }
            let other = try #require(
                profile.values.last?.value?.shadowProfiles.first { $0.id != profile.values.last?.value?.activeProfile })
            try await contacts.switchProfile(to: other.id)
            try await profile.wait("the profile switched") { $0.last?.value?.activeProfile == other.id }
            #expect(score.values.count == 2, "the score did not change, so it was not yielded again: \(score.values.count)")

            try await contacts.store.clearAll()
            try await detail.waitUntilFinished()
            try await circles.waitUntilFinished()
            try await members.waitUntilFinished()
            try await score.waitUntilFinished()
            try await suggestions.waitUntilFinished()
            try await profile.waitUntilFinished()
            #expect(detail.values.last?.value == nil && circles.values.last?.value.isEmpty == true && score.values.last?.value == nil)
        }
    }

    @Test func anObservedSearchSeesAnEditThatMakesAContactMatch() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let search = ObservationRecorder(try await device.contacts.observeSearch("quetzal"))
            try await search.wait("no match yet") { $0.last?.value.total == 0 }
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c9", to: "Quetzal Offline")
            try await search.wait("the renamed contact found") { $0.last?.value.contacts.map(\.id) == ["c9"] }
            try await device.contacts.deleteContact(id: "c9")
            try await search.wait("the deleted contact gone") { $0.last?.value.total == 0 }
        }
    }

    @Test func theSyncStateMovesFromFirstSyncNotFinishedThroughRunningToCompleted() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            let states = Locked<[SyncState]>([])
            let following = Task {
                for await state in device.contacts.sync.states() { states.withLock { $0.append(state) } }
            }
            defer { following.cancel() }
            try await waitUntil("the first state") { !states.withLock { $0 }.isEmpty }
            #expect(states.withLock { $0 }.first?.isFirstSyncFinished == false, "before the first sync")
            // Before each request of the run, what the state says: the pages stored so far.
            let progress = Locked<[SyncState.Activity]>([])
            let sync = device.contacts.sync
            device.hook.before { _, _ in
                progress.withLock { $0.append(sync.state.activity) }
                return nil
            }
            #expect(await device.contacts.syncNow().isComplete)
            device.hook.before(nil)
            let seenProgress = progress.withLock { $0 }
            #expect(
                seenProgress.contains(.running(pages: 1, items: 50, total: nil))
                    && seenProgress.contains(.running(pages: 2, items: 100, total: nil)), "each page counted: \(seenProgress)")
            try await waitUntil("the completed state") { states.withLock { $0 }.last?.isFirstSyncFinished == true }
            let seen = states.withLock { $0 }
            #expect(seen.contains { $0.isRunning }, "running was shown: \(seen)")
            #expect(seen.last?.activity == .idle && seen.last?.lastCompletedAt == device.clock.now())
            #expect(device.contacts.sync.state.isFirstSyncFinished)

            device.network.isOffline = true
            device.clock.advance(by: 60)
            let failed = await device.contacts.syncNow()
            #expect(failed.outcome == .failed)
            try await waitUntil("the failed state") {
                if case .failed = states.withLock({ $0 }).last?.activity { true } else { false }
            }
            guard case .failed(let failure) = states.withLock({ $0 }).last?.activity else { return }
            #expect(failure.errorDescription?.isEmpty == false, "a sentence a screen can show")
            #expect(states.withLock { $0 }.last?.isFirstSyncFinished == true, "a failed run keeps the last completion")
        }
    }
}
