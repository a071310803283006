import APICore
import APICoreOffline
import APICoreREST
import CacheKit

/// ContactsKit as the app installs it: the use cases (``ContactsClient``), the address book as a clearing
/// participant, its sync (for the app's `BackgroundSync`), the freshness windows and stale labels of the
/// offline storage specification, and its mutations (edits queued, subscribing never).
///
/// ```swift
/// let contacts = ContactsFeatureKit(rest: rest, queue: queue, environment: environment, images: images)
/// try container.install([contacts, /* other kits */])
/// session.addEraser("contacts") { userId in try contacts.client.erase(userId: userId) }
/// ```
public struct ContactsFeatureKit: FeatureKit {
    /// `contacts`.
    public let name = "contacts"
    /// The client it provides.
    public let client: ContactsClient

    /// Builds the client (see ``ContactsClient/init(rest:queue:environment:images:syncPageSize:importChunkSize:)``).
    public init(rest: RESTClient, queue: MutationQueue?, environment: CacheEnvironment, images: ImageCache, syncPageSize: Int = 500) {
        client = ContactsClient(rest: rest, queue: queue, environment: environment, images: images, syncPageSize: syncPageSize)
    }

    /// Registers the client, the store, the sync, the timeouts and labels, and the mutations.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let client = self.client
        try registry.register(ContactsClient.self) { _ in client }
        registry.addClearingParticipant(client.store)
        registry.addSync(client.sync)
        let day: CacheTimeout = .seconds(86_400)
        let hour: CacheTimeout = .seconds(3_600)
        registry.setDefaultTimeout(day, forFeature: ContactsClient.Feature.list)
        registry.setDefaultTimeout(hour, forFeature: ContactsClient.Feature.detail)
        registry.setDefaultTimeout(day, forFeature: ContactsClient.Feature.circles)
        registry.setDefaultTimeout(day, forFeature: ContactsClient.Feature.score)
        registry.setDefaultTimeout(hour, forFeature: ContactsClient.Feature.profile)
        for (feature, indicator) in ContactsClient.staleIndicators { registry.setStaleIndicator(indicator, forFeature: feature) }
        for mutation in ContactsClient.Mutation.queueable { registry.declareMutation(mutation, .queueable) }
        registry.declareMutation(ContactsClient.Mutation.subscribe, .requiresConnection)
    }
}
