import CacheKit

/// How long catalog data stays fresh: the requirements' table (5 minutes for the catalog and a funnel's
/// detail, 10 minutes for a definition). These are the kit's declared timeouts; the settings file
/// overrides each by its feature name (``CatalogFeature``), and an app may pass its own.
public struct CatalogTimeouts: Sendable, Hashable {
    /// Catalog pages.
    public var catalog: CacheTimeout
    /// A funnel's detail.
    public var detail: CacheTimeout
    /// A funnel's definition.
    public var definition: CacheTimeout
    /// How old catalog data is labelled: "Last updated … ago" past a day online; offline always.
    public var staleIndicator: StaleIndicator

    /// Creates timeouts; the defaults are the product's (docs/requirements.md).
    public init(
        catalog: CacheTimeout = .seconds(300), detail: CacheTimeout = .seconds(300),
        definition: CacheTimeout = .seconds(600), staleIndicator: StaleIndicator = .lastUpdated(after: 86_400)
    ) {
        self.catalog = catalog
        self.detail = detail
        self.definition = definition
        self.staleIndicator = staleIndicator
    }
}

/// The catalog's feature names: the keys of the settings file's per-feature overrides and a
/// metrics dimension.
public enum CatalogFeature {
    /// Catalog pages.
    public static let catalog = "catalog"
    /// Funnel details.
    public static let detail = "catalog.detail"
    /// Funnel definitions.
    public static let definition = "catalog.definition"
}
