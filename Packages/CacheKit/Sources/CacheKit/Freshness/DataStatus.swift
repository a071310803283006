/// What a view renders beside data: its freshness and the label its kit's ``StaleIndicator`` gives it.
///
/// Kits' list and detail models expose one, so a screen shows "Offline · last updated 3 h ago" without
/// knowing about caches.
public struct DataStatus: Sendable, Hashable {
    /// The data's freshness when it was read.
    public var freshness: Freshness
    /// The label as a value (its kind and date, for a screen to render in its language), or `nil` for none.
    public var staleLabel: StaleLabel?
    /// The label's English text, or `nil` for none.
    public var label: String? { staleLabel?.description }

    /// The status of data of this `freshness`, labelled by `indicator`.
    public init(_ freshness: Freshness, indicator: StaleIndicator) {
        self.freshness = freshness
        staleLabel = indicator.staleLabel(for: freshness)
    }

    /// Whether the data was served because the network failed.
    public var isOffline: Bool { freshness.state == .offline }
}
