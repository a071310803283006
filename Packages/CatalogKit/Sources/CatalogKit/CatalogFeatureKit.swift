import APICore
import APICoreOffline
import APICoreREST

/// CatalogKit as the composition root installs it: the catalog's client (its use cases) and list
/// model factory, the catalog cache as a clearing participant (not account-scoped, but cleared at
/// logout like everything else), and the requirements' timeouts as the kit's defaults.
///
/// ```swift
/// try container.install([CatalogFeatureKit(sharing: rest.configuration), SessionFeatureKit(session: session)])
/// let catalog = try container.resolver(for: "app").resolve(CatalogClient.self)
/// ```
public struct CatalogFeatureKit: FeatureKit {
    /// `catalog`.
    public let name = "catalog"
    /// The client it provides.
    public let client: CatalogClient
    /// The favorites use cases, when the app has a mutation queue.
    public let favorites: CatalogFavorites?

    /// Builds the catalog's client from the app's REST configuration (see ``CatalogClient/init(sharing:timeouts:)``).
    /// With `queue`, it also provides ``CatalogFavorites`` (changes queued offline).
    public init(
        sharing configuration: RESTClient.Configuration, timeouts: CatalogTimeouts = CatalogTimeouts(),
        queue: MutationQueue? = nil
    ) {
        let client = CatalogClient(sharing: configuration, timeouts: timeouts)
        self.client = client
        favorites = queue.map { CatalogFavorites(client: client, queue: $0) }
    }

    /// Registers the client, its cache and its timeouts.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let client = self.client
        try registry.register(CatalogClient.self) { _ in client }
        registry.addClearingParticipant(client.cacheParticipant)
        if let favorites = self.favorites {
            try registry.register(CatalogFavorites.self) { _ in favorites }
        }
        registry.declareMutation(CatalogFavorites.addMutation, .queueable)
        registry.declareMutation(CatalogFavorites.removeMutation, .queueable)
        registry.setDefaultTimeout(client.timeouts.catalog, forFeature: CatalogFeature.catalog)
        registry.setDefaultTimeout(client.timeouts.detail, forFeature: CatalogFeature.detail)
        registry.setDefaultTimeout(client.timeouts.definition, forFeature: CatalogFeature.definition)
        for feature in [CatalogFeature.catalog, CatalogFeature.detail, CatalogFeature.definition] {
            registry.setStaleIndicator(client.timeouts.staleIndicator, forFeature: feature)
        }
    }
}
