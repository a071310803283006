import Foundation

/// How a type of data is labelled for people once it is old: a kit declares one per data type, beside
/// its timeouts (a contact detail: "Last updated 3 h ago" past 24 hours; a score: "Estimated").
///
/// The freshness window itself is the data's timeout; the indicator only decides what a view shows.
/// Data served offline is always labelled, whatever its age, so a person knows it may be out of date.
public struct StaleIndicator: Sendable, Hashable {
    /// What the label says.
    public enum Style: String, Sendable, Hashable, Codable {
        /// No label while online (a stale refresh happens silently).
        case none
        /// "Last updated 3 h ago".
        case lastUpdated
        /// "Estimated · last updated 2 d ago".
        case estimated
    }

    /// What the label says.
    public var style: Style
    /// The age past which a label is shown, in seconds.
    public var threshold: TimeInterval

    /// Creates an indicator.
    public init(style: Style, threshold: TimeInterval) {
        self.style = style
        self.threshold = max(0, threshold)
    }

    /// No label online; "Offline · last updated …" when offline.
    public static let none = StaleIndicator(style: .none, threshold: .infinity)

    /// "Last updated … ago" once the data is older than `seconds`.
    public static func lastUpdated(after seconds: TimeInterval) -> StaleIndicator {
        StaleIndicator(style: .lastUpdated, threshold: seconds)
    }

    /// "Estimated · last updated … ago" once the data is older than `seconds`.
    public static func estimated(after seconds: TimeInterval) -> StaleIndicator {
        StaleIndicator(style: .estimated, threshold: seconds)
    }

    /// The label a view shows beside data of this `freshness`, or `nil` for none.
    ///
    /// Offline data is always labelled with its age ("Offline · last updated 3 h ago"); online data
    /// only past ``threshold``, in the indicator's style.
    public func label(for freshness: Freshness) -> String? {
        staleLabel(for: freshness)?.description
    }

    /// The label as a value (its kind and date), for a screen that renders it in its own language; `nil`
    /// for none. ``label(for:)`` is its English rendering.
    public func staleLabel(for freshness: Freshness) -> StaleLabel? {
        if freshness.state == .offline { return StaleLabel(kind: .offline, updatedAt: freshness.storedAt, age: freshness.age) }
        guard freshness.age > threshold else { return nil }
        switch style {
        case .none: return nil
        case .lastUpdated: return StaleLabel(kind: .lastUpdated, updatedAt: freshness.storedAt, age: freshness.age)
        case .estimated: return StaleLabel(kind: .estimated, updatedAt: freshness.storedAt, age: freshness.age)
        }
    }

    /// An age in words, rounded down to its largest unit: "just now", "5 min ago", "3 h ago", "2 d ago".
    public static func describe(age: TimeInterval) -> String {
        let seconds = max(0, age.isFinite ? age : 0)
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3_600)) h ago"
        default: return "\(Int(min(seconds / 86_400, 1e9))) d ago"
        }
    }
}
