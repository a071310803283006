import Foundation

/// A freshness label as a value: what it says (``kind``) and the date its age is measured from, for a
/// screen to render in its own language; ``description`` is the English default ("Last updated 3 h ago").
///
/// <!-- example: not compiled, SwiftUI is Apple-only -->
/// ```swift
/// if let label = reading.staleLabel {
///     switch label.kind {
///     case .lastUpdated: Text("Mis à jour \(label.updatedAt!, format: .relative(presentation: .named))")
///     default: Text(label.description)
///     }
/// }
/// ```
public struct StaleLabel: Sendable, Hashable, CustomStringConvertible {
    /// What the label says.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// "Last updated 3 h ago".
        case lastUpdated
        /// "Estimated · last updated 2 d ago": a value the server computed long ago, with when.
        case estimated
        /// Served because the network failed: "Offline · last updated 3 h ago", or "Offline" when the data
        /// was never seen.
        case offline
    }

    /// What the label says.
    public var kind: Kind
    /// When the data was last updated (stored, confirmed or computed); `nil` for data never seen.
    public var updatedAt: Date?
    /// Its age when read, in seconds (0 without ``updatedAt``).
    public var age: TimeInterval

    /// A label.
    public init(kind: Kind, updatedAt: Date?, age: TimeInterval) {
        self.kind = kind
        self.updatedAt = updatedAt
        self.age = age
    }

    /// "Offline": data that was never seen, served as nothing because the network failed.
    public static let offlineNeverSeen = StaleLabel(kind: .offline, updatedAt: nil, age: 0)

    /// The English rendering: "Last updated 3 h ago", "Estimated · last updated 2 d ago", "Offline · last
    /// updated 3 h ago", "Offline".
    public var description: String {
        let ago = StaleIndicator.describe(age: age)
        switch kind {
        case .lastUpdated: return "Last updated \(ago)"
        case .estimated: return updatedAt == nil ? "Estimated" : "Estimated · last updated \(ago)"
        case .offline: return updatedAt == nil ? "Offline" : "Offline · last updated \(ago)"
        }
    }
}
