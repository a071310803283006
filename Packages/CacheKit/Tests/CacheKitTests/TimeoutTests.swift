import CacheKit
import CacheKitTesting
import Foundation
import Testing

@Suite("Timeouts and settings", .timeLimit(.minutes(10)))
struct TimeoutTests {
    let storedAt = Date(timeIntervalSince1970: 1_768_478_400)

    @Test("precedence: call site, then type, then kit, then the global default")
    func precedence() {
        #expect(CacheTimeout.declared(callSite: .seconds(5), type: .seconds(30), kit: .seconds(60)) == .seconds(5))
        #expect(CacheTimeout.declared(callSite: .useDefault, type: .seconds(30), kit: .seconds(60)) == .seconds(30))
        #expect(CacheTimeout.declared(callSite: .useDefault, type: nil, kit: .never) == .never)
        #expect(CacheTimeout.declared(callSite: nil, type: .useDefault, kit: .useDefault) == .useDefault)
        let policy = CacheTimeoutPolicy()
        #expect(policy.expiry(for: .useDefault, feature: nil, storedAt: storedAt) == storedAt.addingTimeInterval(300))
    }

    @Test("never, seconds and the global switch")
    func expiryForms() {
        let policy = CacheTimeoutPolicy()
        #expect(policy.expiry(for: .never, feature: nil, storedAt: storedAt) == nil)
        #expect(policy.expiry(for: .seconds(30), feature: nil, storedAt: storedAt) == storedAt.addingTimeInterval(30))
        policy.update(TimeoutSettings(expiryEnabled: false))
        #expect(policy.expiry(for: .seconds(30), feature: nil, storedAt: storedAt) == nil)
        #expect(policy.expiry(for: .useDefault, feature: nil, storedAt: storedAt) == nil)
    }

    @Test("per-feature overrides beat every declared timeout")
    func featureOverrides() {
        let policy = CacheTimeoutPolicy(
            settings: TimeoutSettings(features: [
                "balances": .custom(seconds: 30), "profile": .neverExpire, "transactions": .alwaysFetch, "catalog": .default,
            ]))
        #expect(policy.expiry(for: .seconds(900), feature: "balances", storedAt: storedAt) == storedAt.addingTimeInterval(30))
        #expect(policy.expiry(for: .seconds(60), feature: "profile", storedAt: storedAt) == nil)
        #expect(policy.expiry(for: .never, feature: "transactions", storedAt: storedAt) == storedAt)
        #expect(policy.expiry(for: .seconds(60), feature: "catalog", storedAt: storedAt) == storedAt.addingTimeInterval(60))
        #expect(policy.expiry(for: .seconds(60), feature: "other", storedAt: storedAt) == storedAt.addingTimeInterval(60))
    }

    @Test("end of day is the next local midnight, across a daylight-saving change")
    func endOfDay() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let policy = CacheTimeoutPolicy()
        // 2026-03-07 22:00 EST (03:00 UTC on the 8th); DST starts at 02:00 on the 8th.
        let evening = Date(timeIntervalSince1970: 1_772_938_800)
        let midnight = Date(timeIntervalSince1970: 1_772_946_000)  // 2026-03-08 00:00 EST = 05:00 UTC
        #expect(policy.expiry(for: .endOfDay(zone), feature: nil, storedAt: evening) == midnight)
        // Stored on the short day itself, at 12:00 EDT; the next midnight is 23 hours after the last.
        let noon = Date(timeIntervalSince1970: 1_772_985_600)  // 2026-03-08 16:00 UTC
        #expect(policy.expiry(for: .endOfDay(zone), feature: nil, storedAt: noon) == midnight.addingTimeInterval(23 * 3_600))
    }

    @Test("a settings file is read with defaults for missing keys")
    func loadSettings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("cache-settings.json")
        try Data(
            """
            {"defaultTimeoutSeconds": 120, "features": {"balances": {"mode": "custom", "seconds": 30},
             "profile": {"mode": "Always"}, "quotes": {"mode": "never"}, "news": {"mode": "default"}}}
            """.utf8
        ).write(to: url)
        let settings = try TimeoutSettings.load(from: url)
        #expect(
            settings
                == TimeoutSettings(
                    defaultTimeoutSeconds: 120,
                    features: [
                        "balances": .custom(seconds: 30), "profile": .neverExpire, "quotes": .alwaysFetch,
                        "news": .default,
                    ]))
        let missing = try TimeoutSettings.load(from: directory.url.appendingPathComponent("absent.json"))
        #expect(missing == TimeoutSettings())
    }

    @Test(
        "a malformed settings file is a typed error naming the file and the key",
        arguments: [
            (#"{"features": {"balances": {"mode": "custom", "seconds": -1}}}"#, "features.balances.seconds"),
            (#"{"features": {"balances": {"mode": "sometimes"}}}"#, "features.balances.mode"),
            (#"{"features": {"balances": {"mode": "custom"}}}"#, "features.balances.seconds"),
            (#"{"expiryEnabled": "yes"}"#, "expiryEnabled"),
            (#"{"defaultTimeoutSeconds": 30"#, ""),
        ])
    func malformedSettings(json: String, codingPath: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("cache-settings.json")
        try Data(json.utf8).write(to: url)
        #expect {
            try TimeoutSettings.load(from: url)
        } throws: { error in
            guard case .malformed(let path, let foundPath, _) = error as? TimeoutSettingsError else { return false }
            return path == url.path && foundPath == codingPath
        }
    }
}

@Suite("RedactedKey", .timeLimit(.minutes(10)))
struct RedactedKeyTests {
    @Test("personal data never appears; the namespace stays; the same key gives the same token")
    func redaction() {
        let key = "todays_prediction:alice@example.com:2026-11-21"
        let redacted = RedactedKey(key).description
        #expect(!redacted.contains("alice"))
        #expect(!redacted.contains("@"))
        #expect(!redacted.contains("2026"))
        #expect(redacted.hasPrefix("todays_prediction:#"))
        #expect(RedactedKey(key) == RedactedKey(key))
        #expect(RedactedKey(key) != RedactedKey("todays_prediction:bob@example.com:2026-11-21"))
        #expect(!RedactedKey("alice@example.com").description.contains("alice"))
        #expect(!RedactedKey("a1ice.smith@example.com:x").description.contains("smith"))
        // The review's find: a key with no `:` namespace kept its first word (`alice.#…`).
        for key in ["alice.smith@example.com", "alice/profile", "alice?x=1", "alice_smith.photo"] {
            let printed = RedactedKey(key).description
            #expect(!printed.contains("alice"), "\(key) printed as \(printed)")
            #expect(printed.hasPrefix("#"))
        }
        #expect(RedactedKey("profile:alice").description.hasPrefix("profile:#"))
    }
}

@Suite("Metrics", .timeLimit(.minutes(10)))
struct MetricsTests {
    @Test("counts per store and per feature, with hit rates")
    func registry() {
        let registry = CacheMetricsRegistry()
        let clock = ManualClock()
        let catalog = MemoryStore<Int>(clock: clock, metrics: registry.metrics(store: "memory", feature: "catalog"))
        let accounts = MemoryStore<Int>(clock: clock, metrics: registry.metrics(store: "memory", feature: "accounts"))
        let metadata = CacheEntryMetadata(storedAt: clock.now(), expiresAt: clock.now().addingTimeInterval(10))
        catalog.set(1, forKey: "a", metadata: metadata)
        _ = catalog.get("a")
        _ = catalog.get("a")
        _ = catalog.get("b")
        accounts.set(1, forKey: "x", metadata: metadata)
        clock.advance(by: 10)
        _ = accounts.get("x")
        let byFeature = Dictionary(uniqueKeysWithValues: registry.snapshotByFeature().map { ($0.feature, $0) })
        #expect(byFeature["catalog"]?.hits == 2)
        #expect(byFeature["catalog"]?.misses == 1)
        #expect(byFeature["catalog"]?.hitRate == 2.0 / 3.0)
        #expect(byFeature["accounts"]?.expirations == 1)
        #expect(byFeature["accounts"]?.misses == 1)
        let byStore = registry.snapshotByStore()
        #expect(byStore.count == 1)
        #expect(byStore.first?.hits == 2)
        #expect(byStore.first?.writes == 2)
        #expect(registry.metrics(store: "memory", feature: "catalog") === registry.metrics(store: "memory", feature: "catalog"))
    }
}
