import Foundation

/// The developer-facing cache settings: an app's settings bundle, as a JSON file that works on
/// Linux and Apple platforms alike.
///
/// ```json
/// {
///   "expiryEnabled": true,
///   "defaultTimeoutSeconds": 300,
///   "clearOnChange": false,
///   "features": {
///     "balances": { "mode": "custom", "seconds": 30 },
///     "profile": { "mode": "always" },
///     "transactions": { "mode": "never" },
///     "catalog": { "mode": "default" }
///   }
/// }
/// ```
/// Every key is optional; a missing key keeps its default.
public struct TimeoutSettings: Sendable, Hashable, Codable {
    /// The global switch: when `false`, nothing expires by age (a feature set to
    /// ``FeatureOverride/alwaysFetch`` (`"never"` in the file) still always fetches).
    public var expiryEnabled: Bool
    /// The global default timeout in seconds, used where no level declares one. 300 s by default.
    public var defaultTimeoutSeconds: TimeInterval
    /// Whether applying these settings clears every cache instead of re-stamping expiry dates.
    public var clearOnChange: Bool
    /// Per-feature overrides, by feature name.
    public var features: [String: FeatureOverride]

    /// A per-feature override (REQ ARC-4). The settings file writes them as the modes `never` (cache
    /// never: ``alwaysFetch``), `always` (cache always: ``neverExpire``), `custom` and `default`.
    public enum FeatureOverride: Sendable, Hashable {
        /// Always fetch from the network: values of this feature are stale as soon as stored (mode `never`).
        case alwaysFetch
        /// Cache indefinitely: values of this feature never expire by age (mode `always`; not to be
        /// confused with ``CacheTimeout/never``, a call site's "never expires").
        case neverExpire
        /// Values of this feature are fresh for this many seconds.
        case custom(seconds: TimeInterval)
        /// No override: the application's own timeouts apply.
        case `default`
    }

    /// Creates settings; the defaults are expiry on, 300 s, no clearing, no overrides.
    public init(
        expiryEnabled: Bool = true,
        defaultTimeoutSeconds: TimeInterval = 300,
        clearOnChange: Bool = false,
        features: [String: FeatureOverride] = [:]
    ) {
        self.expiryEnabled = expiryEnabled
        self.defaultTimeoutSeconds = defaultTimeoutSeconds
        self.clearOnChange = clearOnChange
        self.features = features
    }

    enum CodingKeys: String, CodingKey {
        case expiryEnabled, defaultTimeoutSeconds, clearOnChange, features
    }

    /// Decodes settings, keeping defaults for missing keys and rejecting negative or non-finite
    /// durations.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = TimeoutSettings()
        expiryEnabled = try container.decodeIfPresent(Bool.self, forKey: .expiryEnabled) ?? defaults.expiryEnabled
        defaultTimeoutSeconds =
            try container.decodeIfPresent(TimeInterval.self, forKey: .defaultTimeoutSeconds)
            ?? defaults.defaultTimeoutSeconds
        clearOnChange = try container.decodeIfPresent(Bool.self, forKey: .clearOnChange) ?? defaults.clearOnChange
        features = try container.decodeIfPresent([String: FeatureOverride].self, forKey: .features) ?? [:]
        guard defaultTimeoutSeconds.isFinite, defaultTimeoutSeconds >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .defaultTimeoutSeconds, in: container,
                debugDescription: "defaultTimeoutSeconds must be a finite number of seconds, 0 or more"
            )
        }
    }

    /// Reads settings from a JSON file. A file that does not exist gives the defaults.
    ///
    /// - Parameter url: the settings file.
    /// - Throws: ``TimeoutSettingsError`` naming the file and, for bad content, the JSON path.
    public static func load(from url: URL) throws(TimeoutSettingsError) -> TimeoutSettings {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return TimeoutSettings() }
            throw .unreadable(path: url.path, reason: "\(error)")
        }
        do {
            return try JSONDecoder().decode(TimeoutSettings.self, from: data)
        } catch let error as DecodingError {
            throw .malformed(path: url.path, codingPath: error.codingPathDescription, reason: error.reasonDescription)
        } catch {
            throw .malformed(path: url.path, codingPath: "", reason: "\(error)")
        }
    }
}

extension TimeoutSettings.FeatureOverride: Codable {
    enum CodingKeys: String, CodingKey { case mode, seconds }

    /// Decodes `{"mode": "never" | "always" | "custom" | "default", "seconds": n}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let mode = try container.decode(String.self, forKey: .mode)
        switch mode.lowercased() {
        case "never": self = .alwaysFetch
        case "always": self = .neverExpire
        case "default": self = .default
        case "custom":
            let seconds = try container.decode(TimeInterval.self, forKey: .seconds)
            guard seconds.isFinite, seconds >= 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .seconds, in: container, debugDescription: "seconds must be finite and 0 or more")
            }
            self = .custom(seconds: seconds)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .mode, in: container,
                debugDescription: "mode must be never, always, custom or default, not \"\(mode)\"")
        }
    }

    /// Encodes the form ``init(from:)`` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .alwaysFetch: try container.encode("never", forKey: .mode)
        case .neverExpire: try container.encode("always", forKey: .mode)
        case .default: try container.encode("default", forKey: .mode)
        case .custom(let seconds):
            try container.encode("custom", forKey: .mode)
            try container.encode(seconds, forKey: .seconds)
        }
    }
}

/// Why a settings file could not be used. The previous settings stay in force.
public enum TimeoutSettingsError: Error, Hashable, CustomStringConvertible {
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not valid settings JSON; `codingPath` says where (for example `features.balances.seconds`).
    case malformed(path: String, codingPath: String, reason: String)

    /// A sentence that says what is wrong and where: the file's name, not its folder (which names the
    /// device's user).
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "Cache settings file \(URL(fileURLWithPath: path).lastPathComponent) could not be read: \(reason)"
        case .malformed(let path, let codingPath, let reason):
            "Cache settings file \(URL(fileURLWithPath: path).lastPathComponent) is malformed at '\(codingPath)': \(reason)"
        }
    }
}

extension DecodingError {
    /// The coding path as a dotted string, `features.balances.seconds`.
    var codingPathDescription: String {
        let path: [any CodingKey] =
            switch self {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                context.codingPath
            case .keyNotFound(let key, let context):
                context.codingPath + [key]
            @unknown default:
                []
            }
        return path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// The decoder's own explanation.
    var reasonDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.debugDescription
        @unknown default:
            "\(self)"
        }
    }
}

extension TimeoutSettingsError: LocalizedError {
    /// A sentence for people: the defaults are used instead.
    public var errorDescription: String? { "The cache settings could not be read; the defaults are used." }
}
