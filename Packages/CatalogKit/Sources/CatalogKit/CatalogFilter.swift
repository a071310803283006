import Foundation

/// What part of the catalog a listing shows (an app setting, such as the tier filter).
/// Changing it clears the catalog cache (REQ CAT-6).
public struct CatalogFilter: Sendable, Hashable {
    /// Only funnels that are offered (`active=true`).
    public var activeOnly: Bool
    /// Only funnels of this tier (`tier=premium`); `nil` for every tier.
    public var tier: String?

    /// Creates a filter; the default shows everything.
    public init(activeOnly: Bool = false, tier: String? = nil) {
        self.activeOnly = activeOnly
        self.tier = tier
    }

    /// The query items the catalog endpoint reads.
    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if activeOnly { items.append(URLQueryItem(name: "active", value: "true")) }
        if let tier { items.append(URLQueryItem(name: "tier", value: tier)) }
        return items
    }

    /// A stable name for the listing's cache entries (`active,tier=premium`).
    var cacheName: String {
        ([activeOnly ? "active" : "all"] + (tier.map { ["tier=\($0)"] } ?? [])).joined(separator: ",")
    }
}
