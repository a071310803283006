import CacheKitTesting
import Foundation
import MIBCore
import Testing

/// `mib demo`'s story runs in the suite, and its report is checked for the story's outcomes, not
/// its timings.
@Suite(.timeLimit(.minutes(10))) struct DemoTests {
    @Test func theStoryEndsWithThePaymentSeenEverywhereAndEveryCacheEmpty() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = try await Demo.run(in: directory.url)
        let outcomes = Dictionary(report.steps.map { ($0.name, $0.outcome) }, uniquingKeysWith: { $1 })
        #expect(outcomes["Load the catalog page by page"] == "300 funnels: 6 network")
        #expect(outcomes["Reload the catalog (fresh: from the cache)"] == "300 funnels: 6 hit")
        #expect(outcomes["Reload five minutes later (stale: revalidated)"] == "300 funnels: 6 304")
        #expect(outcomes["Open the dashboard again"]?.hasPrefix("hit") == true)
        #expect(outcomes["Switch away from account 100"] == "account 100 cleared, account 1002 kept")
        #expect(outcomes["The server expires the session"] == "401 → \"Session expired, please log in again\", 0 entries left")
        #expect(report.payment.balanceAfter == report.payment.balanceBefore - 1_250)
        #expect(report.payment.balanceSeenByWatcher == report.payment.balanceAfter)
        #expect(report.revalidations == 6 && report.bytesSaved > 0)
        #expect(report.entriesAfterLogout == 0)
        // The contacts chapter: an observed list follows the sync's pages; an offline rename marks its row, and
        // the mark clears when the queue drains.
        let firstSync = outcomes["Contacts: the first sync of the address book, an observed list of 50 following it"] ?? ""
        #expect(firstSync.contains("the observed list updated") && firstSync.contains("→"), "\(firstSync)")
        let offline = outcomes.first { $0.key.hasPrefix("Contacts offline") }?.value ?? ""
        #expect(offline.contains("c1 marked \"Will sync when online\""), "\(offline)")
        let online = outcomes.first { $0.key.hasPrefix("Contacts back online") }?.value ?? ""
        #expect(online.contains("the rename's state sent and c1's mark cleared"), "\(online)")
        // Screens and the funnel were measured: sign-in twice, the catalog three times (network, cache,
        // revalidated), a funnel's detail twice, one payment.
        #expect(report.telemetry.funnel == ["login": 2, "catalog": 3, "detail": 2, "payment": 1])
        #expect(Set(report.telemetry.timeToInteractive.keys) == ["cache", "network"])
        let json = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(Demo.Report.self, from: json) == report)
    }
}
