import Foundation

/// Turns declared timeouts into expiry dates under the current ``TimeoutSettings``.
///
/// One policy is shared by every cache of an app, so a settings reload reaches all of them. The order
/// of precedence is: the feature's override in the settings file (unless it is `default`), then the
/// declared timeout (call site, then type, then kit: see ``CacheTimeout/declared(callSite:type:kit:)``),
/// then the global default. The global switch (`expiryEnabled == false`) makes every entry live until
/// evicted or cleared, except for features set to `never`, which always fetch.
public final class CacheTimeoutPolicy: Sendable {
    private let state: Locked<TimeoutSettings>
    private let kitDefaults = Locked<[String: CacheTimeout]>([:])

    /// Creates a policy with these settings.
    public init(settings: TimeoutSettings = TimeoutSettings()) {
        state = Locked(settings)
    }

    /// The settings in force.
    public var settings: TimeoutSettings {
        state.withLock { $0 }
    }

    /// Replaces the settings. Entries already stored keep their expiry dates until their cache
    /// re-stamps them (`UnifiedCacheManager.apply(_:)` does that for every registered cache).
    public func update(_ settings: TimeoutSettings) {
        state.withLock { $0 = settings }
    }

    /// Records a kit's default timeout for a feature (the kit level of the precedence), so every cache
    /// of that feature uses it: a `CacheManager` without a default of its own, a REST request that
    /// declares `Cacheable` without a timeout, a GraphQL query. `DependencyContainer` sets it from
    /// `KitRegistry.setDefaultTimeout(_:forFeature:)`.
    public func setKitDefault(_ timeout: CacheTimeout, forFeature feature: String) {
        kitDefaults.withLock { $0[feature] = timeout }
    }

    /// The kit's default timeout for a feature, if one was declared.
    public func kitDefault(forFeature feature: String) -> CacheTimeout? {
        kitDefaults.withLock { $0[feature] }
    }

    /// When a value stored at `storedAt` stops being fresh.
    ///
    /// - Parameters:
    ///   - declared: the timeout declared for the value (``CacheTimeout/useDefault`` when none was).
    ///   - feature: the feature the value belongs to, for the settings file's per-feature override.
    ///   - storedAt: when the value was stored.
    /// - Returns: the expiry date, or `nil` when the value never expires by age.
    public func expiry(for declared: CacheTimeout, feature: String?, storedAt: Date) -> Date? {
        let settings = self.settings
        if let feature, let override = settings.features[feature] {
            switch override {
            case .alwaysFetch: return storedAt
            case .neverExpire: return nil
            case .custom(let seconds): return settings.expiryEnabled ? storedAt.addingTimeInterval(seconds) : nil
            case .default: break
            }
        }
        guard settings.expiryEnabled else { return nil }
        switch declared {
        case .never: return nil
        case .seconds(let seconds): return storedAt.addingTimeInterval(seconds)
        case .useDefault: return storedAt.addingTimeInterval(settings.defaultTimeoutSeconds)
        case .endOfDay(let zone): return Self.startOfNextDay(after: storedAt, in: zone)
        }
    }

    /// The first instant of the day after the one `date` falls on, in `zone` (DST-safe).
    static func startOfNextDay(after date: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let startOfDay = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 1, to: startOfDay) ?? startOfDay.addingTimeInterval(86_400)
    }
}
