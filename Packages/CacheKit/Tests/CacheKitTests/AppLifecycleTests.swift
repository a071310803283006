import CacheKit
import CacheKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10))) struct AppLifecycleTests {
    @Test func returningAfterMoreThanAnHourMakesEverythingStaleButKeepsItReadable() async throws {
        let fixture = try ManagerFixture()
        let manager = try fixture.manager(Profile.self)
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
        unified.register(manager)
        let lifecycle = AppLifecycle(caches: unified, clock: fixture.clock)
        let alice = Profile(name: "Alice", email: "a@example.com")
        try await manager.set(alice, forKey: "p", timeout: .seconds(86_400))

        // At the boundary: exactly an hour away is not more than an hour.
        lifecycle.didEnterBackground()
        fixture.clock.advance(by: 3_600)
        #expect(await lifecycle.willEnterForeground() == false)
        #expect(await manager.value(forKey: "p", requester: nil) == alice)

        lifecycle.didEnterBackground()
        fixture.clock.advance(by: 3_601)
        #expect(await lifecycle.willEnterForeground())
        #expect(await manager.value(forKey: "p", requester: nil) == nil, "stale: revalidated on next use")
        #expect(await manager.cached(forKey: "p", requester: nil)?.value == alice, "still the last known data")
        #expect(await lifecycle.willEnterForeground() == false, "no background period, nothing to do")
    }

    @Test func aPushNamingAnAccountRemovesExactlyThatAccount() async throws {
        let fixture = try ManagerFixture()
        let manager = try fixture.manager(Profile.self)
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
        unified.register(manager)
        let alice = Profile(name: "Alice", email: "a@example.com")
        try await manager.set(alice, forKey: "acct100", scope: CacheScope(accountId: "100"))
        try await manager.set(alice, forKey: "acct1002", scope: CacheScope(accountId: "1002"))
        await AppLifecycle(caches: unified, clock: fixture.clock).receivedPush(.account("100"))
        #expect(await manager.value(forKey: "acct100", requester: nil) == nil)
        #expect(await manager.value(forKey: "acct1002", requester: nil) == alice)
    }
}
