import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// One budget for the whole app, enforced across participants.
@Suite("Cache budget", .timeLimit(.minutes(10)))
struct CacheBudgetTests {
    @Test("allowances: caps first, then everyone scaled down by the same factor")
    func allowances() {
        let budget = CacheBudget(totalBytes: 1_000, participantCaps: ["catalog": 300])
        // Within the total: nothing changes but the cap.
        #expect(budget.allowances(for: [("accounts", 200), ("catalog", 500)]) == ["accounts": 200, "catalog": 300])
        // Over it: 1,200 + 300 = 1,500 → scaled by 2/3.
        #expect(budget.allowances(for: [("accounts", 1_200), ("catalog", 500)]) == ["accounts": 800, "catalog": 200])
        // Two rows of one participant (memory and disk) count together.
        #expect(budget.allowances(for: [("accounts", 600), ("accounts", 600)]) == ["accounts": 1_000])
    }

    @Test("enforceBudget trims every participant, memory and disk, within the total and the caps, keeping the most recent")
    func enforcement() async throws {
        let fixture = try ManagerFixture()
        let profiles = try fixture.manager(String.self, feature: "profiles")
        let pages = try fixture.manager(String.self, feature: "pages", persistent: false)
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
        unified.register(profiles)
        unified.register(pages)
        unified.register(RecordingParticipant(name: "webview"))
        let value = String(repeating: "v", count: 1_000)
        for index in 0..<40 {
            try await profiles.set(value, forKey: "profile:\(index)", scope: .user("u"))
            try await pages.set(value, forKey: "page:\(index)")
        }
        let sizes = await unified.statistics().reduce(into: [String: Int]()) { $0[$1.participant, default: 0] += $1.usage.bytes }
        #expect(sizes["profiles", default: 0] > 60_000 && sizes["pages", default: 0] > 30_000)

        unified.budget = CacheBudget(totalBytes: 30_000, participantCaps: ["pages": 5_000])
        let report = await unified.enforceBudget()
        #expect(report.failed.isEmpty)
        #expect(report.isWithinBudget, "\(report.totalAfter) bytes held, budget 30,000")
        let pagesShare = try #require(report.shares.first { $0.participant == "pages" })
        #expect(pagesShare.bytesAfter <= 5_000)
        let profilesShare = try #require(report.shares.first { $0.participant == "profiles" })
        #expect(profilesShare.bytesAfter <= profilesShare.allowance && profilesShare.bytesAfter > 0)
        // Least recently used went first: the newest entries are still there, the oldest are not.
        #expect(await profiles.value(forKey: "profile:39", requester: "u") == value)
        #expect(await profiles.value(forKey: "profile:0", requester: "u") == nil)
        #expect(await pages.value(forKey: "page:39", requester: nil) == value)
        #expect(await pages.value(forKey: "page:0", requester: nil) == nil)
        // Within budget already: nothing more is evicted.
        let again = await unified.enforceBudget()
        #expect(again.shares.map(\.bytesAfter) == again.shares.map(\.bytesBefore))
    }
}
