import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import MIBCore
import Testing

/// The freshness windows drive refreshes, on the device's injected clock: a list or circles read past a day
/// starts an incremental sync in the background, a detail or the profile past an hour is fetched again, a
/// push refetches the contacts it names, and the return to the foreground after an hour away syncs.
@Suite(.timeLimit(.minutes(10))) struct ContactsFreshnessTests {
    let kit = ContactsKitAgainstBackendTests()

    private func rename(_ fixture: BackendFixture, _ alice: Credentials, _ id: String, _ name: String) async throws {
        #expect(
            try await fixture.send(.patch, "/contacts/\(id)", json: #"{"displayName":"\#(name)"}"#, token: alice.accessToken).status == 200)
    }

    @Test func aListReadPastADayStartsAnIncrementalSyncInTheBackground() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            try await rename(fixture, alice, "c1", "Changed on the server")
            device.clock.advance(by: ContactsClient.FreshnessWindow.list)
            _ = try await device.contacts.contacts()
            _ = try await device.contacts.circles()
            #expect(device.contacts.lastRefreshStarted("sync") == nil, "a day old exactly is still fresh: no sync started")
            device.clock.advance(by: 1)
            let reading = try await device.contacts.contacts()
            #expect(device.contacts.lastRefreshStarted("sync") == device.clock.now(), "a second more: started by the read")
            #expect(reading.label == nil, "a stale list refreshes silently")
            try await waitUntil("the background sync brought the server's rename") {
                try await device.contacts.contacts(limit: 500).value.contacts.first { $0.id == "c1" }?.displayName
                    == "Changed on the server"
            }
        }
    }

    @Test func aDetailReadPastAnHourIsFetchedAgainAndItsObserverSeesIt() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let detail = ObservationRecorder(try await device.contacts.observeContact(id: "c2"))
            try await detail.wait("c2") { $0.last?.value?.id == "c2" }
            try await rename(fixture, alice, "c2", "Fetched again")
            device.clock.advance(by: ContactsClient.FreshnessWindow.detail)
            _ = try await device.contacts.contact(id: "c2")
            #expect(device.contacts.lastRefreshStarted("contact:c2") == nil, "an hour old exactly is still fresh")
            device.clock.advance(by: 1)
            #expect(try await device.contacts.contact(id: "c2").value?.displayName != "Fetched again", "answered at once from the device")
            try await detail.wait("the refetched contact") { $0.last?.value?.displayName == "Fetched again" }
            #expect(detail.values.last?.syncedAt == device.clock.now(), "its age is now the refetch's")
            #expect(try await device.contacts.contacts(limit: 500).value.contacts.first { $0.id == "c1" }?.displayName != "Fetched again")
        }
    }

    @Test func theProfilePastAnHourIsFetchedAgain() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let profile = try #require(try await device.contacts.profile().value)
            let other = try #require(profile.shadowProfiles.first { $0.id != profile.activeProfile })
            #expect(
                try await fixture.send(.put, "/profile/active", json: #"{"id":"\#(other.id)"}"#, token: alice.accessToken).status == 200)
            device.clock.advance(by: ContactsClient.FreshnessWindow.detail + 1)
            _ = try await device.contacts.profile()
            try await waitUntil("the switched profile fetched again") {
                try await device.contacts.profile().value?.activeProfile == other.id
            }
        }
    }

    @Test func aPushRefetchesTheContactsItNames() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            try await rename(fixture, alice, "c7", "Pushed")
            #expect(try await fixture.send(.delete, "/contacts/c8", json: "", token: alice.accessToken).status == 200)
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c9", to: "Mine, pending")
            device.network.isOffline = false
            try await device.contacts.invalidate(contactIds: ["c7", "c8", "c9"])
            #expect(try await device.contacts.contact(id: "c7").value?.displayName == "Pushed")
            #expect(try await device.contacts.contact(id: "c8").value == nil, "deleted on the server")
            #expect(try await device.contacts.contact(id: "c9").value?.displayName == "Mine, pending", "a pending change still wins")
        }
    }

    @Test func backInTheForegroundAfterMoreThanAnHourTheAddressBookSyncs() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let lifecycle = AppLifecycle(caches: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()), clock: device.clock)
            let contacts = device.contacts
            lifecycle.whenBackAfterLongAbsence { contacts.syncInBackground() }
            try await rename(fixture, alice, "c3", "While away")
            lifecycle.didEnterBackground()
            device.clock.advance(by: 3_600)
            #expect(await lifecycle.willEnterForeground() == false, "an hour away exactly: nothing")
            lifecycle.didEnterBackground()
            device.clock.advance(by: 3_601)
            #expect(await lifecycle.willEnterForeground())
            // Read through the list (a detail read past its hour would fetch c3 on its own).
            try await waitUntil("the sync after the long absence") {
                try await contacts.contacts(limit: 500).value.contacts.first { $0.id == "c3" }?.displayName == "While away"
            }
            #expect(contacts.lastRefreshStarted("sync") != nil)
        }
    }

    @Test func theScoresLabelIsMeasuredFromWhenTheServerComputedIt() async throws {
        try await kit.withDevice(sharedClock: true) { (fixture, alice, device) async throws in
            #expect(try await fixture.get("/score", token: alice.accessToken).status == 200, "the score computed now")
            device.clock.advance(by: 23 * 3_600)
            device.tokens.set(try await fixture.credentials())  // the first token expired an hour after sign-in
            #expect(await device.contacts.syncNow().isComplete)
            device.clock.advance(by: 2 * 3_600)
            let score = try await device.contacts.score()
            #expect(score.staleLabel?.kind == .estimated && score.staleLabel?.age == 25 * 3_600, "computed 25 h ago, synced 2 h ago")
            #expect(score.label == "Estimated · last updated 1 d ago")
            #expect(try await device.contacts.contacts().label == nil, "the rest is 2 h old")
            #expect(try await device.contacts.contact(id: "c1").label == nil)
        }
    }

    @Test func enrichmentIsCachedFirstAndRefreshedInTheBackgroundPastAnHour() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let first = try await device.contacts.enrichment(of: "c5")
            #expect(first.value != nil && device.transport.count("/contacts/c5/enrichment") == 1)
            device.clock.advance(by: ContactsClient.FreshnessWindow.detail)
            #expect(try await device.contacts.enrichment(of: "c5").value == first.value)
            #expect(device.transport.count("/contacts/c5/enrichment") == 1, "the kept copy, without the network")
            device.clock.advance(by: 1)
            device.hook.before { request, _ in request.url.path.hasSuffix("/enrichment") ? .connectionLost(reason: "slow") : nil }
            let kept = try await device.contacts.enrichment(of: "c5")
            #expect(kept.value == first.value && kept.label == "Last updated 1 h ago", "at once, with its age")
            try await waitUntil("the refresh in the background") { device.transport.count("/contacts/c5/enrichment") == 2 }
        }
    }
}
