import APICore
import APICoreOffline
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import GRDB
import HTTPTypes
import ReferenceBackend
import Testing

/// Kill -9 trials of the address book's sync (OFF-15, CON-5): a child process syncs in full again and
/// again while renaming and importing offline, and is killed with SIGKILL at a random moment; the device
/// started again from its files then syncs to completion, its file intact, every kept change still shown
/// until the queue sends it, and equal to the server once it has.
@Suite(.timeLimit(.minutes(10))) struct ContactsSyncCrashTests {
    static let variable = "MIB_CONTACTS_SYNC_CRASH_CHILD"
    static let trials = 6

    @Test func aSyncKilledAtAnyMomentLeavesAFileTheNextLaunchCompletesFrom() async throws {
        let fixture = try await BackendFixture.start(funnelCount: 5, contactCount: 400)
        defer { fixture.directory.remove() }
        let alice = try await fixture.credentials()
        // Half the trials kill the child during its first sync; the other half after it renamed and imported
        // offline, during the syncs that follow, so the queued rename is checked in every one of those. Trials go
        // on (up to twice as many) until a kill has cut a run part way, which the next launch must complete.
        var cutMidRun = 0
        var trial = 0
        while trial < Self.trials || (cutMidRun == 0 && trial < 2 * Self.trials) {
            defer { trial += 1 }
            let afterRename = trial % 2 == 1
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let started = folder.url.appendingPathComponent(afterRename ? "renamed" : "started")
            let child = try CrashChild.start(
                test: "childSyncsUntilKilled",
                environment: [
                    Self.variable: [folder.url.path, fixture.backend.baseURL.absoluteString, alice.accessToken, alice.userId]
                        .joined(separator: "\n")
                ])
            try await child.waitUntilStarted(signalledBy: started)
            #expect(try await child.kill(after: .milliseconds(Int.random(in: 5...400))), "trial \(trial): the child ended before its kill")

            let device = ContactsKitAgainstBackendTests.Device(
                baseURL: fixture.backend.baseURL, directory: folder.url, credentials: alice, syncPageSize: 25)
            let file = device.contacts.store.fileURL(for: alice.userId)
            if FileManager.default.fileExists(atPath: file.path) {
                let check = try DatabaseQueue(path: file.path)
                let integrity = try await check.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
                try check.close()
                #expect(integrity == "ok", "trial \(trial): the file after the kill: \(integrity ?? "?")")
            }
            if (try? device.contacts.store.checkpoint(userId: alice.userId))??.isInProgress == true { cutMidRun += 1 }
            let report = await device.contacts.syncNow()
            #expect(report.outcome == .completed, "trial \(trial): \(report.outcome) \(String(describing: report.error))")
            let renamed = try await device.contacts.contact(id: "c1").value?.displayName
            let queued = await device.queue.pending().contains { $0.name == ContactsClient.Mutation.edit }
            if afterRename {
                #expect(queued, "trial \(trial): the rename made before the kill is still queued")
                #expect(renamed == "Killed", "trial \(trial): a queued rename shown after the relaunch")
            }
            _ = await device.queue.replay()
            #expect(await device.queue.pending().isEmpty)
            #expect(await device.contacts.syncNow().outcome == .completed)
            let local = try await device.contacts.contacts(limit: 5_000).value.contacts.map(\.id).sorted()
            let server = try await serverIds(fixture, alice)
            #expect(local == server, "trial \(trial): \(local.count) on the device, \(server.count) on the server")
            _ = try await fixture.send(.patch, "/contacts/c1", json: #"{"displayName":"Reset"}"#, token: alice.accessToken)
        }
        #expect(cutMidRun > 0, "a kill cut a run part way in \(cutMidRun) of \(trial) trials")
        await fixture.backend.stop()
    }

    /// Only in the child process: renames and imports offline, then syncs in full again and again until killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[variable] != nil, "runs only as the crash test's child"))
    func childSyncsUntilKilled() async throws {
        guard let settings = ProcessInfo.processInfo.environment[Self.variable]?.split(separator: "\n").map(String.init),
            settings.count == 4, let baseURL = URL(string: settings[1])
        else { return }
        let directory = URL(fileURLWithPath: settings[0])
        let device = ContactsKitAgainstBackendTests.Device(
            baseURL: baseURL, directory: directory, credentials: Credentials(accessToken: settings[2], userId: settings[3]),
            syncPageSize: 25)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("started").path, contents: nil)
        _ = await device.contacts.syncNow()
        try await device.contacts.rename(contactId: "c1", to: "Killed")
        _ = try await device.contacts.importDeviceContacts(
            (0..<30).map { ContactDraft(deviceId: "crash-\($0)", displayName: "Crash \($0)") })
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("renamed").path, contents: nil)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            device.clock.advance(by: SyncCheckpoint.defaultMaximumOfflineDuration + 1)
            _ = await device.contacts.syncNow()
        }
    }

    private func serverIds(_ fixture: BackendFixture, _ alice: Credentials) async throws -> [String] {
        var ids: [String] = []
        var after = ""
        while true {
            let response = try await fixture.get("/contacts?limit=500\(after)", token: alice.accessToken)
            let page = try JSONValue.parse(response.body)
            ids += (page["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            guard let next = response.headerFields.first(where: { $0.name.canonicalName == "x-next-cursor" })?.value else {
                return ids.sorted()
            }
            after = "&after=\(next)"
        }
    }
}
