import APICore
import APICoreGraphQL
import AccountsKit
import CacheKit
import ChatHistoryKit
import Foundation
import MIBApp

/// `mib inspect`: the debug cache inspector. It signs in against a backend, uses the app as a
/// user would (the catalog, the dashboard, two accounts, the catalog again), and then reads what
/// the ``UnifiedCacheManager`` reports: statistics per store and a redacted export of every entry
/// (keys, users and accounts hashed, values never included).
public enum Inspector {
    /// What the inspector saw.
    public struct Inspection: Codable, Sendable {
        /// The backend used.
        public var server: String
        /// Counts and sizes of every store.
        public var statistics: [CacheStoreStatistics]
        /// Every entry, redacted.
        public var entries: [CacheExportEntry]
        /// Each participant's share of the app-wide budget (after enforcing it).
        public var budget: BudgetReport
    }

    /// Fills the caches against `server` (or a reference backend started in `directory` when `nil`)
    /// and inspects them.
    /// - Throws: when the backend cannot be started or a request fails.
    public static func run(server: URL?, in directory: URL) async throws -> Inspection {
        try await DemoComposition.withBackend(server, in: directory, logger: DemoComposition.quietLogger) { baseURL in
            try await inspect(baseURL, caches: directory.appendingPathComponent("caches"))
        }
    }

    private static func inspect(_ baseURL: URL, caches: URL) async throws -> Inspection {
        let app = try DemoComposition(baseURL: baseURL, cachesDirectory: caches, logger: DemoComposition.quietLogger)
        try await app.signIn()
        _ = try await app.loadCatalog()
        _ = try await app.graphQL.fetch(DashboardQuery())
        _ = try await app.balance(of: "100")
        _ = try await app.balance(of: "1002")
        _ = try await app.loadCatalog()
        _ = try await app.chat.syncOnLogin().history.get()
        _ = try await app.chat.todaysPrediction()
        for name in ["ada", "grace", "ada"] { _ = try await app.composition.thumbnail("/avatars/\(name).png") }
        let budget = await app.unified.enforceBudget()
        let inspection = Inspection(
            server: baseURL.absoluteString, statistics: await app.unified.statistics(),
            entries: await app.unified.exportCacheContents(), budget: budget)
        _ = await app.logOut()
        return inspection
    }
}
