import CacheKit
import CacheKitTesting
import Foundation
import Testing

@Suite("UnifiedCacheManager", .timeLimit(.minutes(10)))
struct UnifiedCacheManagerTests {
    /// Two real managers (one on disk, one in memory) and a recording participant.
    struct World {
        let fixture: ManagerFixture
        let accounts: CacheManager<Balance>
        let catalog: CacheManager<String>
        let recorder: RecordingParticipant
        let unified: UnifiedCacheManager

        init(failing: Bool = false, settings: TimeoutSettings = TimeoutSettings()) throws {
            fixture = try ManagerFixture(settings: settings)
            accounts = try fixture.manager(Balance.self, feature: "accounts", category: .graphQL)
            catalog = try fixture.manager(String.self, feature: "catalog", category: .rest)
            recorder = RecordingParticipant(name: "webview", failing: failing)
            unified = UnifiedCacheManager(timeouts: fixture.environment.timeouts)
            unified.register(accounts)
            unified.register(recorder)
            unified.register(catalog)
        }

        func populate() async throws {
            try await accounts.set(Balance(cents: 100), forKey: "balance:100", scope: .user("u", account: "100"))
            try await accounts.set(Balance(cents: 1002), forKey: "balance:1002", scope: .user("u", account: "1002"))
            try await catalog.set("CATALOG-PAGE-ONE", forKey: "catalog:page:1")
        }
    }

    @Test("clearAllCaches clears every participant even when one fails, and reports the failure")
    func clearAllWithFailure() async throws {
        let world = try World(failing: true)
        try await world.populate()
        // The positive control: before the clear, the entries are there, on disk too.
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") == Balance(cents: 100))
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == "CATALOG-PAGE-ONE")
        #expect(!world.fixture.directory.files().isEmpty, "the disk store wrote its file")
        let report = await world.unified.clearAllCaches()
        #expect(report.succeeded == ["accounts", "catalog"])
        #expect(report.failed.map(\.participant) == ["webview"])
        #expect(!report.isComplete)
        #expect(world.recorder.calls == [.clearAll])
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") == nil)
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(world.fixture.directory.files().isEmpty, "no entry file is left in the caches directory")
    }

    @Test("clearing account 100 keeps account 1002 and shared data")
    func accountSwitch() async throws {
        let world = try World()
        try await world.populate()
        let report = await world.unified.clearCache(forAccountId: "100")
        #expect(report.isComplete)
        #expect(world.recorder.calls == [.clearAccount("100")])
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") == nil)
        #expect(await world.accounts.value(forKey: "balance:1002", requester: "u") == Balance(cents: 1002))
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == "CATALOG-PAGE-ONE")
        #expect(!world.fixture.directory.anyFileContains("\"cents\":100}"))
    }

    @Test("REST and GraphQL clearing reach only their own category")
    func categories() async throws {
        let world = try World()
        try await world.populate()
        #expect(await world.unified.clearRESTCache().succeeded == ["catalog"])
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") != nil)
        #expect(await world.unified.clearGraphQLCache().succeeded == ["accounts"])
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") == nil)
        #expect(world.recorder.calls.isEmpty)
    }

    @Test("clearCache(forQuery:) removes that key everywhere")
    func clearQuery() async throws {
        let world = try World()
        try await world.populate()
        await world.unified.clearCache(forQuery: "catalog:page:1")
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") != nil)
        #expect(world.recorder.calls == [.clearKey("catalog:page:1")])
    }

    @Test("clearTimestamps makes every entry stale")
    func clearTimestamps() async throws {
        let world = try World()
        try await world.populate()
        await world.unified.clearTimestamps()
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(await world.accounts.value(forKey: "balance:1002", requester: "u") == nil)
        #expect(world.recorder.calls == [.expireAll])
    }

    @Test("applying new settings re-times stored entries; clearOnChange clears instead")
    func settingsChange() async throws {
        let world = try World()
        try await world.populate()  // catalog: global default 300 s
        await world.unified.apply(TimeoutSettings(features: ["catalog": .custom(seconds: 20)]))
        world.fixture.clock.advance(by: 21)
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(
            await world.accounts.value(forKey: "balance:100", requester: "u") != nil,
            "re-timing keeps the balance type's own 30 s")
        world.fixture.clock.advance(by: 10)
        #expect(await world.accounts.value(forKey: "balance:100", requester: "u") == nil)
        #expect(world.recorder.calls == [.applyTimeouts])

        try await world.catalog.set("PAGE", forKey: "catalog:page:1")
        let url = world.fixture.directory.url.appendingPathComponent("settings.json")
        try Data(#"{"clearOnChange": true, "features": {"catalog": {"mode": "always"}}}"#.utf8).write(to: url)
        let report = try await world.unified.reloadSettings(from: url)
        #expect(report.operation == "clearAllCaches")
        #expect(await world.catalog.value(forKey: "catalog:page:1", requester: nil) == nil)
        #expect(world.fixture.environment.timeouts.settings.features["catalog"] == .neverExpire)
    }

    @Test("a malformed settings file leaves the settings in force")
    func badSettingsFile() async throws {
        let world = try World(settings: TimeoutSettings(defaultTimeoutSeconds: 42))
        let url = world.fixture.directory.url.appendingPathComponent("settings.json")
        try Data(#"{"defaultTimeoutSeconds": "soon"}"#.utf8).write(to: url)
        await #expect(throws: TimeoutSettingsError.self) { try await world.unified.reloadSettings(from: url) }
        #expect(world.fixture.environment.timeouts.settings.defaultTimeoutSeconds == 42)
    }

    @Test("statistics and the export cover every store; the export has no raw key, identifier or value")
    func statisticsAndExport() async throws {
        let world = try World()
        let predictions = try world.fixture.manager(String.self, feature: "predictions")
        world.unified.register(predictions)
        try await predictions.set(
            "RAINY-TOMORROW", forKey: "todays_prediction:alice@example.com:2026-11-21",
            scope: .user("alice@example.com", account: "ACC-123456"))
        _ = await predictions.value(
            forKey: "todays_prediction:alice@example.com:2026-11-21",
            requester: "alice@example.com")
        let stats = await world.unified.statistics()
        let predictionRows = stats.filter { $0.participant == "predictions" }
        #expect(predictionRows.map(\.counts.store) == ["memory", "disk"])
        #expect(predictionRows.first?.counts.hits == 1)
        #expect(predictionRows.last?.usage.count == 1)

        let export = await world.unified.exportCacheContents()
        #expect(export.count == 2)
        let text = String(decoding: try JSONEncoder().encode(export), as: UTF8.self)
        for secret in ["alice", "example.com", "ACC-123456", "RAINY", "2026-11-21"] {
            #expect(!text.contains(secret), "export leaks \(secret)")
        }
        #expect(export.allSatisfy { $0.key.hasPrefix("todays_prediction:#") })
    }
}
