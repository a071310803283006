import CacheKit
import Foundation

/// The timeout settings file (JSON) and the timeouts it sets.
public enum SettingsFuzz {
    /// One input: settings that decode encode and decode to the same settings, and every expiry
    /// they give can be computed for any feature.
    public static func run(_ data: Data) throws {
        guard let settings = try? JSONDecoder().decode(TimeoutSettings.self, from: data) else { return }
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(settings)
        } catch {
            throw FuzzViolation("decoded settings do not encode: \(error)")
        }
        guard let again = try? JSONDecoder().decode(TimeoutSettings.self, from: encoded), again == settings else {
            throw FuzzViolation("settings changed through a round trip")
        }
        let policy = CacheTimeoutPolicy(settings: settings)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let timeouts: [CacheTimeout] = [.never, .useDefault, .seconds(30), .seconds(.greatestFiniteMagnitude),
                                        .endOfDay(TimeZone(identifier: "UTC") ?? .current)]
        for feature in Array(settings.features.keys.prefix(8)) + ["none"] {
            for timeout in timeouts { _ = policy.expiry(for: timeout, feature: feature, storedAt: now) }
        }
    }
}
