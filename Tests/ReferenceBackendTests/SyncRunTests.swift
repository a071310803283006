import CacheKit
import CacheKitTesting
import Foundation
import MIBCore
import Testing

/// `mib sync` against a fresh reference backend: every kit's registered sync runs once under the budget.
@Suite(.timeLimit(.minutes(10))) struct SyncRunTests {
    @Test func theBackgroundSyncRunsEveryRegisteredKitSyncAgainstTheBackend() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // The budget is measured on a clock that stands still: however slow the machine, the run completes.
        let report = try await SyncRun.run(
            server: nil, in: folder.url, budget: 30, contactCount: 600, clock: DemoClock(frozenAt: Date()))
        #expect(report.syncs.map(\.name) == ["chat-history", "contacts"], "the syncs ChatHistoryKit and ContactsKit registered")
        let chat = try #require(report.syncs.first)
        #expect(chat.outcome == .completed && chat.mode == .full && (chat.counts["threads"] ?? 0) > 0)
        #expect(chat.requests == 1 && chat.pages == 1, "one page of threads with their messages inside it")
        let contacts = try #require(report.syncs.last)
        #expect(
            contacts.outcome == .completed && contacts.counts["contacts"] == 600 && contacts.requests == 2 + 1,
            "500 a page, then the summary")
    }
}
