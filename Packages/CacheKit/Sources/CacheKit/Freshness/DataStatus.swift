/// What a view renders beside data: its freshness and the label its kit's ``StaleIndicator`` gives it.
///
/// Kits' list and detail models expose one, so a screen shows "Offline · last updated 3 h ago" without
/// knowing about caches.
public struct DataStatus: Sendable, Hashable {
    /// The data's freshness when it was read.
    public var freshness: Freshness
    /// The text to show, or `nil` for none.
    public var label: String?

    /// The status of data of this `freshness`, labelled by `indicator`.
    public init(_ freshness: Freshness, indicator: StaleIndicator) {
        self.freshness = freshness
        label = indicator.label(for: freshness)
    }

    /// Whether the data was served because the network failed.
    public var isOffline: Bool { freshness.state == .offline }
}
