import APICore
import CacheKit

/// __Name__Kit as the app installs it: its use cases, its timeout and stale label, and its mutation.
///
/// ```swift
/// try container.install([__Name__FeatureKit(rest: rest, queue: queue), /* other kits */])
/// let __name__ = try container.resolver(for: "app").resolve(__Name__Client.self)
/// ```
public struct __Name__FeatureKit: FeatureKit {
    /// `__name__`.
    public let name = "__name__"
    /// The client it provides.
    public let client: __Name__Client

    /// Creates the kit over the app's REST client and mutation queue.
    public init(rest: RESTClient, queue: MutationQueue? = nil) {
        client = __Name__Client(rest: rest, queue: queue)
    }

    /// Registers the client, the feature's timeout and label, and the queueable mutation.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let client = self.client
        try registry.register(__Name__Client.self) { _ in client }
        registry.setDefaultTimeout(.seconds(300), forFeature: __Name__Client.feature)
        registry.setStaleIndicator(.lastUpdated(after: 86_400), forFeature: __Name__Client.feature)
        registry.declareMutation(__Name__Client.addMutation, .queueable)
    }
}
