import CacheKit
import CacheKitTesting
import Foundation
import MIBCore
import Testing

/// `mib inspect`: statistics per store and an export in which nothing identifies the user.
@Suite(.timeLimit(.minutes(10))) struct InspectorTests {
    @Test func theExportCoversEveryStoreAndRedactsEveryIdentifier() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inspection = try await Inspector.run(server: nil, in: directory.url)
        let rows = Dictionary(
            inspection.statistics.map { ("\($0.participant)/\($0.counts.store)", $0) },
            uniquingKeysWith: { first, _ in first })
        #expect(rows["catalog/http"]?.counts.hits == 6, "the second catalog pass is six cache hits")
        #expect(rows["rest/http"]?.counts.hits == 0, "the app's REST cache does not count the catalog's")
        #expect((rows["graphql/normalized"]?.usage.count ?? 0) >= 3)
        // The catalog's pages are kept on disk too, so a relaunch shows them at once.
        #expect(Set(inspection.entries.map(\.store)) == ["memory", "disk", "normalized", "sqlite"])
        #expect(Set(inspection.entries.map(\.participant)) == ["catalog", "graphql", "chat.prediction", "chat.subscription", "images"])
        #expect(rows["images/sqlite"]?.usage.count == 2 && rows["images/sqlite"]?.counts.hits == 1, "two thumbnails, one read twice")
        #expect((rows["chat-history/sqlite"]?.usage.count ?? 0) > 0, "the chat history is counted")
        let text = String(decoding: try JSONEncoder().encode(inspection.entries), as: UTF8.self)
        for secret in ["u1", "alice", "http://", "funnels", "\"100\"", "balance", "todays_prediction:u1", "avatars", "ada.png"] {
            #expect(!text.contains(secret), "the export shows \(secret)")
        }
        // Account numbers are digits, which timestamps (and hex hashes) contain too: check the identifiers'
        // form instead. Every account and user is a hash; no key names an account.
        #expect(inspection.entries.allSatisfy { ($0.account ?? "#").hasPrefix("#") && ($0.user ?? "#").hasPrefix("#") })
        for raw in ["Account:100", "Account:1002", "(id:", "accountId"] {
            #expect(!inspection.entries.contains { $0.key.contains(raw) }, "a key shows \(raw)")
        }
        // Both accounts' records (the accounts and their transactions) are tagged, each with its account.
        #expect(Set(inspection.entries.compactMap(\.account)).count == 2, "both accounts' records are tagged")
        #expect(inspection.entries.filter { $0.account != nil }.count > 2, "transactions carry their account too")
        // Each participant's share of the app-wide budget: what its stores hold, well within 50 MB here.
        let shares = Dictionary(inspection.budget.shares.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(inspection.budget.budget.totalBytes == 50 * 1024 * 1024 && inspection.budget.isWithinBudget)
        #expect((shares["catalog"]?.bytesAfter ?? 0) > 0 && (shares["graphql"]?.bytesAfter ?? 0) > 0)
        #expect(shares["images"] == nil, "the image cache keeps its own limit, outside the app-wide budget")
        #expect(
            shares["catalog"]?.bytesAfter
                == inspection.statistics.filter { $0.participant == "catalog" }
                .reduce(0) { $0 + $1.usage.bytes })
    }
}
