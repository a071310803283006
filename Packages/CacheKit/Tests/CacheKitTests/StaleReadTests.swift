import CacheKit
import CacheKitTesting
import Foundation
import Testing

@Suite("Last known data: stale reads with their age", .timeLimit(.minutes(10)))
struct StaleReadTests {
    struct Offline: Error {}
    let alice = Profile(name: "Alice", email: "alice@example.com")

    @Test("an expired value is a miss for value(), but stays readable with its age, through a restart")
    func expiredStaysReadable() async throws {
        let fixture = try ManagerFixture()
        try await fixture.manager(Profile.self).set(alice, forKey: "p", scope: .user("a"), timeout: .seconds(60))
        fixture.clock.advance(by: 3 * 3_600)
        let restarted = try fixture.manager(Profile.self)
        #expect(await restarted.value(forKey: "p", requester: "a") == nil)
        let last = try #require(await restarted.cached(forKey: "p", requester: "a"))
        #expect(last.value == alice)
        #expect(last.freshness.state == .stale)
        #expect(last.freshness.age == 3 * 3_600)
        #expect(await restarted.cached(forKey: "p", requester: "b") == nil, "never another user's")
    }

    @Test("ifLoadFails returns the last known value labelled offline; never throws it away")
    func offlineFallback() async throws {
        let fixture = try ManagerFixture()
        let manager = try fixture.manager(Profile.self)
        try await manager.set(alice, forKey: "p", timeout: .seconds(60))
        fixture.clock.advance(by: 600)
        let update = try await manager.read(forKey: "p", stale: .ifLoadFails) { throw Offline() }
        #expect(update.value == alice && update.source == .cache)
        #expect(update.freshness.state == .offline && update.freshness.age == 600)
        #expect(StaleIndicator.none.label(for: update.freshness) == "Offline · last updated 10 min ago")
        await #expect(throws: Offline.self) {
            _ = try await manager.read(forKey: "p", stale: .never) { throw Offline() }
        }
        await #expect(throws: Offline.self, "nothing cached: the error") {
            _ = try await manager.read(forKey: "other", stale: .ifLoadFails) { throw Offline() }
        }
    }

    @Test("whileRevalidating returns the stale value at once and refreshes in the background")
    func staleWhileRevalidating() async throws {
        let fixture = try ManagerFixture()
        let manager = try fixture.manager(Profile.self)
        try await manager.set(alice, forKey: "p", timeout: .seconds(60))
        fixture.clock.advance(by: 120)
        let renamed = Profile(name: "Alice B.", email: alice.email)
        let first = try await manager.read(forKey: "p", stale: .whileRevalidating) { renamed }
        #expect(first.value == alice && first.freshness.state == .stale && first.freshness.age == 120)
        // The refresh is an unstructured task: on two cores busy with the rest of the suite (under
        // ThreadSanitizer, crash trials' child processes) it may wait well over 30 s for a thread.
        try await waitUntil("the background refresh stored the new value") {
            await manager.value(forKey: "p", requester: nil) == renamed
        }
        let second = try await manager.read(forKey: "p", stale: .whileRevalidating) { renamed }
        #expect(second.freshness.state == .fresh && second.freshness.age == 0)
    }

    @Test("updates delivers a stale value first, labelled, then the loaded one")
    func updatesLabelStale() async throws {
        let fixture = try ManagerFixture()
        let manager = try fixture.manager(Profile.self)
        try await manager.set(alice, forKey: "p", timeout: .seconds(60))
        fixture.clock.advance(by: 61)
        var states: [Freshness.State] = []
        for try await update in manager.updates(forKey: "p", loader: { [alice] in alice }) {
            states.append(update.freshness.state)
        }
        #expect(states == [.stale, .fresh])
    }

    @Test(
        "indicators label by age and style",
        arguments: [
            (StaleIndicator.lastUpdated(after: 86_400), 3_600.0, nil as String?),
            // At the boundary: exactly the threshold is not past it; a second more is.
            (StaleIndicator.lastUpdated(after: 86_400), 86_400.0, nil as String?),
            (StaleIndicator.lastUpdated(after: 86_400), 86_401.0, "Last updated 1 d ago"),
            (StaleIndicator.lastUpdated(after: 86_400), 2 * 86_400.0, "Last updated 2 d ago"),
            (StaleIndicator.estimated(after: 86_400), 90_000.0, "Estimated · last updated 1 d ago"),
            (StaleIndicator.none, 9e9, nil),
        ])
    func labels(indicator: StaleIndicator, age: TimeInterval, label: String?) {
        #expect(indicator.label(for: Freshness(state: .stale, storedAt: .distantPast, age: age)) == label)
        #expect(DataStatus(Freshness(state: .offline, storedAt: .distantPast, age: age), indicator: indicator).isOffline)
    }
}
