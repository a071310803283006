import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import CacheKit

/// __Name__Kit as the app installs it: its use case (resolved lazily, with the app's GraphQL client), its
/// GraphQL keys, its own cache (cleared at logout), its timeout and stale label, and its mutation.
///
/// ```swift
/// try container.install([try __Name__FeatureKit(rest: rest, environment: environment, queue: queue), /* other kits */])
/// try container.registry(for: "app").register(GraphQLClient.self) { _ in graphQL }
/// try container.verify()
/// let __name__ = try container.resolver(for: "app").resolve(__Name__Client.self)
/// ```
public struct __Name__FeatureKit: FeatureKit {
    /// `__name__`.
    public let name = "__name__"
    private let rest: RESTClient
    private let queue: MutationQueue?
    /// The kit's own cache: the user's drafts, on disk.
    public let drafts: CacheManager<String>

    /// Creates the kit over the app's REST client, cache environment and mutation queue.
    /// - Throws: `CacheError` when the drafts cache cannot be created.
    public init(rest: RESTClient, environment: CacheEnvironment, queue: MutationQueue? = nil) throws(CacheError) {
        self.rest = rest
        self.queue = queue
        drafts = try CacheManager<String>(feature: "__name__.drafts", environment: environment, persistence: .disk())
    }

    /// Registers the client, the GraphQL keys, the drafts cache, the feature's timeout and label, and the
    /// queueable mutation.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let (rest, queue, drafts) = (self.rest, self.queue, self.drafts)
        registry.require(GraphQLClient.self)
        // Telemetry keeps this route word in endpoint templates (`/api/__name__`); ids never are.
        EndpointTemplate.declareRouteNames(["__name__"])
        try registry.register(__Name__Client.self) { resolver in
            __Name__Client(rest: rest, graphQL: try resolver.resolve(GraphQLClient.self), drafts: drafts, queue: queue)
        }
        try registry.addCacheKeyProvider(__Name__Keys())
        registry.addClearingParticipant(drafts)
        registry.setDefaultTimeout(.seconds(300), forFeature: __Name__Client.feature)
        registry.setStaleIndicator(.lastUpdated(after: 86_400), forFeature: __Name__Client.feature)
        registry.declareMutation(__Name__Client.addMutation, .queueable)
    }
}
