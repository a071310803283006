import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import GRDB
import HTTPTypes
import ReferenceBackend
import Testing

/// The address book's sync at its edges in time, against the reference backend on real SQLite files: cut
/// and resumed, read while it writes, overtaken by a logout or another user's sign-in, bounded by its
/// budget, sharing its time with the user's offline changes (REQ OFF-13 to OFF-17, CON-5). Each test has its
/// positive control beside it.
@Suite(.timeLimit(.minutes(10))) struct ContactsSyncEdgeTests {
    typealias Device = ContactsKitAgainstBackendTests.Device

    func withDevice(_ body: (BackendFixture, Credentials, Device) async throws -> Void) async throws {
        try await ContactsKitAgainstBackendTests().withDevice(body)
    }

    // MARK: Resume

    @Test func aResumedIncrementalRunBringsEveryRenameAndDeletionOfTheRunItContinues() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            for index in 10..<70 {
                let renamed = try await fixture.send(
                    .patch, "/contacts/c\(index)", json: #"{"displayName":"Renamed \#(index)"}"#, token: alice.accessToken)
                #expect(renamed.status == 200)
            }
            #expect(try await fixture.send(.delete, "/contacts/c5", json: "", token: alice.accessToken).status == 200)
            // The network goes after the first page of changes (50 of 61) is stored.
            device.hook.before { request, _ in
                request.url.path == "/contacts/changes" && request.url.query?.contains("after=") == true ? .offline(reason: "cut") : nil
            }
            let cut = await device.contacts.syncNow()
            #expect(cut.mode == .incremental && cut.outcome == .failed && cut.pages == 1)
            device.hook.before(nil)
            let resumed = await device.contacts.syncNow()
            #expect(resumed.resumed && resumed.outcome == .completed)
            let asked = try #require(device.hook.sent.last { $0.path == "/contacts/changes" }?.query)
            #expect(asked.contains("since=0"), "the resumed run asks since the token its run started from: \(asked)")
            for index in 10..<70 {
                #expect(try await device.contacts.contact(id: "c\(index)").value?.displayName == "Renamed \(index)")
            }
            #expect(try await device.contacts.contact(id: "c5").value == nil, "the deletion after the cursor arrives")
            #expect(try await device.contacts.contacts(limit: 500).value.total == 119)
        }
    }

    @Test func theNextRunAfterAResumedOneAsksOnlyWhatChangedSince() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            #expect(
                try await fixture.send(.patch, "/contacts/c1", json: #"{"displayName":"Once"}"#, token: alice.accessToken).status == 200)
            let first = await device.contacts.syncNow()
            #expect(first.mode == .incremental && first.counts["contacts"] == 1)
            let again = await device.contacts.syncNow()
            #expect(again.mode == .incremental && again.counts["contacts"] == 0, "the completed run adopted its newer token")
        }
    }

    // MARK: Readers

    @Test func screensReadingWhileTheFirstSyncOpensAndWritesTheFileNeverFailNorSeeHalfAPage() async throws {
        try await withDevice { (_, _, device) async throws in
            let sync = Task { await device.contacts.syncNow() }
            var totals = Set<Int>()
            var reads = 0
            while reads < 400 {
                let page = try await device.contacts.contacts(limit: 500).value
                totals.insert(page.total)
                #expect(page.contacts.count == page.total, "a read sees whole pages: \(page.contacts.count) of \(page.total)")
                _ = try await device.contacts.search("zo")
                reads += 1
                if reads > 50, totals.contains(120) { break }
            }
            let report = await sync.value
            #expect(report.outcome == .completed, "the sync beside the readers: \(report.outcome) \(String(describing: report.error))")
            #expect(totals.isSubset(of: [0, 50, 100, 120]), "only whole pages were ever seen: \(totals.sorted())")
        }
    }

    // MARK: Session

    @Test func aLogoutWhileARunPagesLeavesNoFileAndTheRunStops() async throws {
        try await withDevice { (_, _, device) async throws in
            let store = device.contacts.store
            device.hook.before { request, _ in
                guard request.url.path == "/contacts", request.url.query?.contains("after=") == true else { return nil }
                try? await store.clearAll()
                device.tokens.set(nil)
                return nil
            }
            let report = await device.contacts.syncNow()
            #expect(report.outcome == .sessionEnded && report.pages == 1)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? []
            #expect(files.isEmpty, "left after the logout: \(files)")
        }
    }

    @Test func positiveControlARunWithNoLogoutKeepsItsFile() async throws {
        try await withDevice { (_, alice, device) async throws in
            #expect(await device.contacts.syncNow().outcome == .completed)
            #expect(FileManager.default.fileExists(atPath: device.contacts.store.fileURL(for: alice.userId).path))
        }
    }

    @Test func anotherUsersSignInDuringARunPutsNothingOfEitherInTheOthersFile() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            for index in 0..<20 {
                let renamed = try await fixture.send(
                    .patch, "/contacts/c\(index)", json: #"{"displayName":"Bob's \#(index)"}"#, token: bob.accessToken)
                #expect(renamed.status == 200)
            }
            let store = device.contacts.store
            let switchedAt = Locked<Int?>(nil)
            device.hook.before { request, index in
                guard request.url.path == "/contacts", request.url.query?.contains("after=") == true,
                    switchedAt.withLock({ $0 }) == nil
                else { return nil }
                switchedAt.withLock { $0 = index }
                // As a sign-in does: every cache cleared, then the new user's token.
                try? await store.clearAll()
                device.tokens.set(bob)
                return nil
            }
            let alicesRun = await device.contacts.syncNow()
            #expect(alicesRun.outcome == .sessionEnded)
            // The page in flight at the switch was Alice's; her run sends nothing after it, with anyone's token.
            let switchIndex = try #require(switchedAt.withLock { $0 })
            let afterSwitch = device.hook.sent.dropFirst(switchIndex + 1)
            #expect(afterSwitch.isEmpty, "requests of Alice's run after the switch: \(afterSwitch.map(\.path))")
            #expect(!FileManager.default.fileExists(atPath: store.fileURL(for: alice.userId).path), "no file of Alice")

            let bobsRun = await device.contacts.syncNow()
            #expect(bobsRun.mode == .full && bobsRun.outcome == .completed && bobsRun.counts["contacts"] == 120)
            #expect(try await device.contacts.contact(id: "c3").value?.displayName == "Bob's 3")
            #expect(try await device.contacts.contacts(limit: 500).value.total == 120)
        }
    }

    @Test func aRequestForAUserNoLongerSignedInIsNeverSentWithTheNewUsersToken() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            device.tokens.set(bob)
            var request = APIRequest<Data>(path: "/contacts/c1", feature: "contacts.detail")
            request.owner = alice.userId
            await #expect(throws: APIError.sessionChanged) {
                try await device.rest.send(request, policy: .fetchIgnoringCacheCompletely)
            }
            #expect(device.hook.sent.isEmpty, "nothing left, with anyone's token")
            request.owner = bob.userId
            #expect(try await device.rest.send(request, policy: .fetchIgnoringCacheCompletely).status == 200, "positive control")
            #expect(device.hook.sent.map(\.token) == [bob.accessToken])
        }
    }

    // MARK: Budget

    @Test func theBudgetCancelsTheRequestInFlightAtItsDeadlineAgainstAServerThatNeverAnswers() async throws {
        try await withDevice { (_, _, device) async throws in
            let inFlight = Locked(false)
            let cancelled = Locked(false)
            device.hook.before { _, _ in
                inFlight.withLock { $0 = true }
                let error = await neverAnswered()
                cancelled.withLock { $0 = error == .cancelled }
                return error
            }
            let deadline = device.clock.now().addingTimeInterval(30)
            let ended = Locked<SyncReport?>(nil)
            let run = Task {
                let report = await device.contacts.syncNow(until: deadline)
                ended.withLock { $0 = report }
            }
            defer { run.cancel() }
            try await waitUntil("the first page's request in flight, its deadline armed") {
                inFlight.withLock { $0 } && device.clock.sleepingTasks > 0
            }
            // The clock removes each sleeper it wakes before `advance` returns: what the deadline did is read
            // at once, whatever the run's tasks do after.
            let armed = device.clock.sleepingTasks
            device.clock.advance(by: 29)
            #expect(device.clock.sleepingTasks == armed, "positive control: 29 s woke no deadline")
            #expect(ended.withLock { $0 } == nil)
            device.clock.advance(by: 1)
            #expect(device.clock.sleepingTasks == armed - 1, "the 30th second woke the deadline")
            try await waitUntil("the run ended at its deadline, exactly") { ended.withLock { $0 } != nil }
            let report = try #require(ended.withLock { $0 })
            #expect(report.outcome == .budgetExhausted && report.pages == 0)
            try await waitUntil("the request in flight cancelled") { cancelled.withLock { $0 } }
        }
    }

    @Test func aTokenAheadOfTheServersCounterIsRefusedAsAnInvalidCursor() async throws {
        try await withDevice { (fixture, alice, _) async throws in
            let first = try await fixture.get("/contacts/changes?since=0", token: alice.accessToken)
            #expect(first.status == 200)
            let counter = try #require(first.headerFields[HTTPField.Name("X-Changes-Token")!].flatMap { Int($0) })
            // At the boundary: the server's own counter is a valid token, one past it is not.
            #expect(try await fixture.get("/contacts/changes?since=\(counter)", token: alice.accessToken).status == 200)
            for since in [counter + 1, 999_999] {
                let ahead = try await fixture.get("/contacts/changes?since=\(since)", token: alice.accessToken)
                #expect(ahead.status == 400 && String(decoding: ahead.body, as: UTF8.self).contains("INVALID_CURSOR"), "since=\(since)")
            }
        }
    }

    @Test func aServerCounterBelowTheTokenAskedFallsBackToOneFullSync() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            #expect(
                try await fixture.send(.patch, "/contacts/c1", json: #"{"displayName":"Moved"}"#, token: alice.accessToken).status == 200)
            #expect(await device.contacts.syncNow().mode == .incremental)
            // A server whose log restarted below the device's token answers with a lower counter.
            device.hook.after { request, response in
                if request.url.path == "/contacts/changes", let name = HTTPField.Name("X-Changes-Token") {
                    response.headerFields[name] = "0"
                }
            }
            let report = await device.contacts.syncNow()
            #expect(report.fellBackToFullSync && report.mode == .full && report.outcome == .completed)
        }
    }

    // MARK: Pending changes

    @Test func aSyncBeforeTheQueueDrainsKeepsTheUsersOfflineChanges() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let suggestion = try #require(try await device.contacts.suggestions().value.first)
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c1", to: "Mine")
            try await device.contacts.dismissSuggestion(id: suggestion.id)
            let imported = try await device.contacts.importDeviceContacts([ContactDraft(deviceId: "ab-1", displayName: "Imported One")])
            device.network.isOffline = false
            // Meanwhile on the server: c1 renamed elsewhere, c2 too (the positive control).
            #expect(
                try await fixture.send(.patch, "/contacts/c1", json: #"{"displayName":"Theirs"}"#, token: alice.accessToken).status == 200)
            #expect(
                try await fixture.send(.patch, "/contacts/c2", json: #"{"displayName":"Theirs 2"}"#, token: alice.accessToken).status == 200
            )

            #expect(await device.contacts.syncNow().mode == .incremental)
            #expect(try await device.contacts.contact(id: "c1").value?.displayName == "Mine", "a pending rename wins")
            #expect(try await device.contacts.contact(id: "c2").value?.displayName == "Theirs 2", "other changes arrive")
            #expect(try await !device.contacts.suggestions().value.contains { $0.id == suggestion.id }, "the dismissal stays")

            device.clock.advance(by: SyncCheckpoint.defaultMaximumOfflineDuration + 1)
            let full = await device.contacts.syncNow()
            #expect(full.mode == .full && full.outcome == .completed)
            #expect(
                try await device.contacts.contact(id: imported[0].id).value?.displayName == "Imported One", "a full sync keeps the import")
            #expect(try await device.contacts.contact(id: "c1").value?.displayName == "Mine")

            #expect(await device.queue.replay().sent == 3)
            await device.contacts.followQueue()
            // Once the sent rename is forgotten, a later change on the server is no longer covered by it.
            #expect(
                try await fixture.send(.patch, "/contacts/c1", json: #"{"displayName":"Later"}"#, token: alice.accessToken).status == 200)
            try await waitUntil("the sent rename forgotten, the server's later name shown") {
                _ = await device.contacts.syncNow()
                return try await device.contacts.contact(id: "c1").value?.displayName == "Later"
            }
            #expect(try await device.contacts.contact(id: imported[0].id).value != nil, "the server has the import now")
        }
    }

    @Test func aChangeQueuedWhileAPageIsFetchedIsNeitherForgottenNorUndoneByThatPage() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            #expect(
                try await fixture.send(.patch, "/contacts/c4", json: #"{"displayName":"Server"}"#, token: alice.accessToken).status == 200)
            let contacts = device.contacts
            let renamed = Locked(false)
            device.hook.before { request, _ in
                guard request.url.path == "/contacts/changes", !renamed.withLock({ $0 }) else { return nil }
                renamed.withLock { $0 = true }
                _ = try? await contacts.rename(contactId: "c4", to: "Mine, meanwhile")
                return nil
            }
            #expect(await device.contacts.syncNow().outcome == .completed)
            #expect(try await device.contacts.contact(id: "c4").value?.displayName == "Mine, meanwhile", "the page holds the older name")
            device.hook.before(nil)
            #expect(await device.contacts.syncNow().outcome == .completed)
            #expect(try await device.contacts.contact(id: "c4").value?.displayName == "Mine, meanwhile", "still kept: not sent yet")
            #expect(await device.queue.replay().sent == 1)
        }
    }

    @Test func aChangeTheServerRefusesIsUndoneAndReported() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let events = device.contacts.events()
            await device.contacts.followQueue()
            device.network.isOffline = true
            try await device.contacts.rename(contactId: "c7", to: "Gone soon")
            try await device.contacts.deleteCircle(id: "circle-1")  // mandatory: the server refuses
            try await device.contacts.rename(contactId: "c8", to: "Kept")
            device.network.isOffline = false
            #expect(try await fixture.send(.delete, "/contacts/c7", json: "", token: alice.accessToken).status == 200)
            let replay = await device.queue.replay()
            #expect(replay.refused.count == 2 && replay.sent == 1)
            let refused = Locked<[String]>([])
            let listening = Task {
                for await event in events {
                    if case .changeRefused(let mutation, _) = event { refused.withLock { $0.append(mutation) } }
                }
            }
            defer { listening.cancel() }
            try await waitUntil("two refusals reported") { refused.withLock { $0.count } >= 2 }
            #expect(Set(refused.withLock { $0 }) == [ContactsClient.Mutation.edit, ContactsClient.Mutation.deleteCircle])
            #expect(try await device.contacts.contact(id: "c7").value == nil, "the server's value restored: deleted")
            #expect(try await device.contacts.contact(id: "c8").value?.displayName == "Kept", "the accepted change stays")
            #expect(try await device.contacts.circles().value.contains { $0.id == "circle-1" }, "the refused deletion undone")
        }
    }

    // MARK: Imports

    @Test func anImportRunAgainAfterAnInterruptionAddsNothingTwice() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            device.network.isOffline = true
            let drafts = [ContactDraft(deviceId: "ab-1", displayName: "Ada"), ContactDraft(deviceId: "ab-2", displayName: "Alan")]
            _ = try await device.contacts.importDeviceContacts(drafts)
            _ = try await device.contacts.importDeviceContacts(drafts)
            #expect(try await device.contacts.contacts(limit: 500).value.total == 122, "two imported, once each on the device")
            device.network.isOffline = false
            _ = await device.queue.replay()
            let summary = try await fixture.get("/contacts?limit=500", token: alice.accessToken)
            let names = String(decoding: summary.body, as: UTF8.self)
            #expect(names.components(separatedBy: "\"Ada\"").count == 2 && names.components(separatedBy: "\"Alan\"").count == 2)
            // The same device contacts edited since and imported again: another request, so another key (a reused
            // key with another body would be refused by the server as IDEMPOTENCY_KEY_REUSED).
            _ = try await device.contacts.importDeviceContacts([
                ContactDraft(deviceId: "ab-1", displayName: "Ada Lovelace"), ContactDraft(deviceId: "ab-2", displayName: "Alan"),
            ])
            let again = await device.queue.replay()
            #expect(again.sent == 1 && again.refused.isEmpty, "\(again)")
        }
    }

    @Test func anImportOfMoreThanAThousandIsSentInChunksTheServerTakes() async throws {
        try await withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let drafts = (0..<1_001).map { ContactDraft(deviceId: "ab-\($0)", displayName: "Bulk \($0)") }
            _ = try await device.contacts.importDeviceContacts(drafts)
            #expect(await device.queue.pending().count == 2)
            let replay = await device.queue.replay()
            #expect(replay.sent == 2 && replay.refused.isEmpty)
            let incremental = await device.contacts.syncNow()
            #expect(incremental.outcome == .completed)
            #expect(try await device.contacts.contacts(limit: 5_000).value.total == 1_121)
            let server = try await fixture.get("/contacts?limit=500&after=imported-", token: alice.accessToken)
            #expect(server.status == 200)
        }
    }

    // MARK: Tokens and rows

    @Test func aTokenTheServerRejectsFallsBackToOneFullSync() async throws {
        try await withDevice { (_, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            for token in ["not-a-number", "999999"] {
                try setChangesToken(token, device: device, user: alice.userId)
                let report = await device.contacts.syncNow()
                #expect(report.fellBackToFullSync && report.mode == .full && report.outcome == .completed, "token \(token)")
                #expect(try await device.contacts.contacts(limit: 500).value.total == 120)
                let next = await device.contacts.syncNow()
                #expect(next.mode == .incremental && !next.fellBackToFullSync, "then incremental again")
            }
        }
    }

    @Test func aMalformedRecordIsSkippedAndCountedAndFractionalDatesParse() async throws {
        try await withDevice { (_, _, device) async throws in
            device.hook.after { request, response in
                guard request.url.path == "/contacts" else { return }
                var text = String(decoding: response.body, as: UTF8.self)
                text = text.replacingOccurrences(of: #""id":"c1","#, with: #""id":1,"#)
                text = text.replacingOccurrences(of: #"Z""#, with: #".250Z""#)
                response.body = Data(text.utf8)
            }
            let report = await device.contacts.syncNow()
            #expect(report.outcome == .completed && report.counts["skipped"] == 1 && report.counts["contacts"] == 119)
            #expect(try await device.contacts.contact(id: "c2").value != nil)
        }
    }

    @Test func anUndecodableRowOnTheDeviceIsLeftOutOfReadsNeverBlockingThem() async throws {
        try await withDevice { (_, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let file = try DatabaseQueue(path: device.contacts.store.fileURL(for: alice.userId).path)
            try await file.write { db in try db.execute(sql: "UPDATE contact SET body = x'00ff' WHERE id = 'c1'") }
            try file.close()
            let page = try await device.contacts.contacts(limit: 500).value
            #expect(page.contacts.count == 119 && !page.contacts.contains { $0.id == "c1" })
            #expect(await device.contacts.syncNow().outcome == .completed)
        }
    }

    private func setChangesToken(_ token: String, device: Device, user: String) throws {
        let file = try DatabaseQueue(path: device.contacts.store.fileURL(for: user).path)
        try file.write { db in try db.execute(sql: "UPDATE sync_checkpoint SET changes_token = ?", arguments: [token]) }
        try file.close()
    }
}
