import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// Cross-cache checks of the security rule: after logout nothing of the previous user can be read,
/// in memory or on disk, and the next user starts clean.
@Suite("Logout across caches", .timeLimit(.minutes(10)))
struct LogoutClearsEverythingTests {
    struct Account: Codable, Equatable, Sendable {
        var id: String
        var balance: Int
    }

    @Test("user A's data is unreadable after logout, on disk too, and user B never sees it")
    func logoutThenAnotherUser() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let environment = CacheEnvironment(clock: clock, cachesDirectory: directory.url)
        let unified = UnifiedCacheManager(timeouts: environment.timeouts)
        let accounts = try CacheManager<Account>(
            feature: "accounts", category: .graphQL, environment: environment,
            persistence: .disk(), defaultTimeout: .seconds(30))
        let catalog = try CacheManager<String>(
            feature: "catalog", category: .rest, environment: environment,
            persistence: .disk(), defaultTimeout: .seconds(300))
        let profile = try CacheManager<String>(feature: "profile", environment: environment)
        for participant in [accounts, catalog, profile] as [any CacheClearingParticipant] {
            unified.register(participant)
        }

        try await accounts.set(
            Account(id: "100", balance: 4_200), forKey: "account:100",
            scope: .user("alice", account: "100"))
        try await profile.set("ALICE-PROFILE", forKey: "profile:me", scope: .user("alice"))
        try await catalog.set("PUBLIC-CATALOG", forKey: "catalog:page:1")
        #expect(directory.anyFileContains("4200"))

        // Bob on the same device before any clear: Alice's entries are invisible to him.
        #expect(await accounts.value(forKey: "account:100", requester: "bob") == nil)
        #expect(await profile.value(forKey: "profile:me", requester: "bob") == nil)
        #expect(await catalog.value(forKey: "catalog:page:1", requester: "bob") == "PUBLIC-CATALOG")

        let report = await unified.clearAllCaches()
        #expect(report.isComplete)
        #expect(report.succeeded == ["accounts", "catalog", "profile"])
        #expect(await accounts.value(forKey: "account:100", requester: "alice") == nil)
        #expect(await profile.value(forKey: "profile:me", requester: "alice") == nil)
        #expect(await catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(directory.files().isEmpty, "no cache file is left after logout")

        // A restart after logout finds nothing either.
        let restarted = try CacheManager<Account>(feature: "accounts", environment: environment, persistence: .disk())
        #expect(await restarted.value(forKey: "account:100", requester: "alice") == nil)

        // Bob's session caches normally afterwards.
        try await accounts.set(Account(id: "200", balance: 10), forKey: "account:200", scope: .user("bob", account: "200"))
        #expect(await accounts.value(forKey: "account:200", requester: "bob") == Account(id: "200", balance: 10))
    }
}
