import Foundation

/// How long a cached value stays fresh.
///
/// A timeout is declared at several levels; the first one that is not ``useDefault`` wins, in this
/// order: the call site, the request or query type (``CacheTimeoutProviding``), the kit's default,
/// then the global default of ``TimeoutSettings`` (300 s unless configured). A per-feature override in
/// the settings file beats all of them (see ``CacheTimeoutPolicy``).
public enum CacheTimeout: Sendable, Hashable {
    /// The value never expires by age (it can still be evicted or cleared).
    case never
    /// The value is fresh for this many seconds after it was stored.
    case seconds(TimeInterval)
    /// Defer to the next level of precedence, ending at the global default.
    case useDefault
    /// The value is fresh until the end of the day it was stored on, in the given time zone
    /// (for example a daily prediction that rolls over at the user's midnight).
    case endOfDay(TimeZone)

    /// The first timeout that is not ``useDefault``, in precedence order.
    ///
    /// - Parameters:
    ///   - callSite: the timeout the caller passed for this one call.
    ///   - type: the timeout the request or query type declares.
    ///   - kit: the kit's default timeout.
    /// - Returns: the declared timeout, or ``useDefault`` when no level declares one.
    public static func declared(
        callSite: CacheTimeout? = nil,
        type: CacheTimeout? = nil,
        kit: CacheTimeout? = nil
    ) -> CacheTimeout {
        for level in [callSite, type, kit] {
            if let level, level != .useDefault { return level }
        }
        return .useDefault
    }
}

/// A type whose cached values have a timeout of their own, the "request or query type" level of
/// ``CacheTimeout``'s precedence. `CacheManager` reads it from the values it stores.
public protocol CacheTimeoutProviding {
    /// The timeout of values of this type, unless the call site says otherwise.
    static var cacheTimeout: CacheTimeout { get }
}

extension CacheTimeout {
    /// A compact, stable text form used by the disk store: `never`, `default`, `s:30`,
    /// `eod:Europe/Paris`.
    var storageForm: String {
        switch self {
        case .never: "never"
        case .useDefault: "default"
        case .seconds(let seconds): "s:\(seconds)"
        case .endOfDay(let zone): "eod:\(zone.identifier)"
        }
    }

    /// Parses ``storageForm``; `nil` for text that is not one.
    init?(storageForm: String) {
        switch storageForm {
        case "never": self = .never
        case "default": self = .useDefault
        default:
            if storageForm.hasPrefix("s:"), let seconds = TimeInterval(storageForm.dropFirst(2)) {
                self = .seconds(seconds)
            } else if storageForm.hasPrefix("eod:"), let zone = TimeZone(identifier: String(storageForm.dropFirst(4))) {
                self = .endOfDay(zone)
            } else {
                return nil
            }
        }
    }
}
