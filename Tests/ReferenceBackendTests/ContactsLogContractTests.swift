import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import Testing

/// The backend's address book over time, on its injected clock: the change log keeps 30 days (an older
/// token is refused and the device syncs in full, for real), and the score is recomputed once a day.
@Suite(.timeLimit(.minutes(10))) struct ContactsLogContractTests {
    let kit = ContactsKitAgainstBackendTests()

    @Test func aTokenOlderThanTheChangeLogIsRefusedAndTheDeviceSyncsInFull() async throws {
        let serverClock = ManualClock()
        try await withBackend(5, now: { serverClock.now() }) { fixture in
            let alice = try await fixture.credentials()
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let device = ContactsKitAgainstBackendTests.Device(fixture.backend, directory: folder.url, credentials: alice)
            #expect(await device.contacts.syncNow().mode == .full)
            #expect(try await fixture.send(.delete, "/contacts/c3", json: "", token: alice.accessToken).status == 200)

            // 31 days later by the server's clock (the device's says an hour: its own rule would sync incrementally).
            serverClock.advance(by: 31 * 86_400)
            device.clock.advance(by: 3_600)
            let fresh = try await fixture.credentials()
            device.tokens.set(fresh)
            #expect(
                try await fixture.send(.patch, "/contacts/c4", json: #"{"displayName":"Recent"}"#, token: fresh.accessToken).status == 200)
            let old = try await fixture.get("/contacts/changes?since=0", token: fresh.accessToken)
            #expect(old.status == 400 && String(decoding: old.body, as: UTF8.self).contains("INVALID_CURSOR"), "the deletion is forgotten")
            let kept = try await fixture.get("/contacts/changes?since=1", token: fresh.accessToken)
            #expect(kept.status == 200, "positive control: a token after the forgotten change still works")

            let report = await device.contacts.syncNow()
            #expect(report.fellBackToFullSync && report.mode == .full && report.isComplete, "\(report)")
            #expect(try await device.contacts.contact(id: "c3").value == nil, "the deletion reached the device by the full sync")
            #expect(try await device.contacts.contact(id: "c4").value?.displayName == "Recent")
        }
    }

    @Test func theScoreIsRecomputedOnceADay() async throws {
        let serverClock = ManualClock()
        try await withBackend(5, now: { serverClock.now() }) { fixture in
            func score(_ token: String) async throws -> JSONValue? {
                try JSONValue.parse(try await fixture.get("/score", token: token).body)["data"]
            }
            let first = try #require(try await score(try await fixture.credentials().accessToken))
            serverClock.advance(by: 86_399)
            let sameDay = try #require(try await score(try await fixture.credentials().accessToken))
            #expect(sameDay["computedAt"] == first["computedAt"], "not yet a day")
            serverClock.advance(by: 86_401)
            let later = try #require(try await score(try await fixture.credentials().accessToken))
            #expect(later["computedAt"] != first["computedAt"])
            let days = { (value: JSONValue) in value["history"]?.arrayValue?.compactMap { $0["day"]?.stringValue } ?? [] }
            #expect(days(later).count == 30 && days(later).last != days(first).last, "the history moved: \(days(later).suffix(3))")
            #expect(Array(days(later).prefix(28)) == Array(days(first).suffix(28)), "two days on, the oldest two gone")
        }
    }
}
