import APICore
import APICoreREST
import CacheKit
import CacheKitTesting
import CatalogKitTesting
import Testing

@testable import CatalogKit

/// The kit as the composition root installs it.
@Suite(.timeLimit(.minutes(10))) struct CatalogKitRegistrationTests {
    @Test func theKitProvidesItsClientTimeoutsAndACacheClearedWithEverythingElse() async throws {
        let fixture = try CatalogFixture()
        let unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts, logger: fixture.environment.logger)
        let container = DependencyContainer(cacheManager: unified)
        let kit = CatalogFeatureKit(sharing: fixture.client.rest.configuration)
        try container.install([kit])
        try container.verify()
        let client = try container.resolver(for: "app").resolve(CatalogClient.self)
        #expect(client === kit.client)
        #expect(container.defaultTimeout(forFeature: CatalogFeature.catalog) == .seconds(300))
        #expect(container.defaultTimeout(forFeature: CatalogFeature.definition) == .seconds(600))

        _ = try await client.allPages(limit: 5)
        let before = await unified.statistics().filter { $0.participant == "catalog" }
        // Three pages in memory and on disk (a relaunch shows them at once).
        #expect(before.first?.usage.count == 6)
        #expect(fixture.directory.anyFileContains("Funnel 001"))
        let report = await unified.clearAllCaches()
        #expect(report.isComplete && report.succeeded.contains("catalog"))
        #expect(await unified.statistics().filter { $0.participant == "catalog" }.allSatisfy { $0.usage.count == 0 })
        #expect(!fixture.directory.anyFileContains("Funnel 001"))
    }
}
