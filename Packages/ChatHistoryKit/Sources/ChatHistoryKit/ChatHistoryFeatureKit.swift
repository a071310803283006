import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation

/// ChatHistoryKit as the composition root installs it: the use cases (``ChatHistoryClient``), its
/// caches as clearing participants (the history included: logout clears it, the server keeps it),
/// its timeouts and stale labels, its queueable mutations, its sync (for the app's `BackgroundSync`), and
/// the eraser account deletion runs.
///
/// ```swift
/// let chat = try ChatHistoryFeatureKit(rest: rest, queue: queue, environment: environment, timeZone: .current)
/// try container.install([chat, /* other kits */])
/// session.addEraser("chat history") { userId in try chat.client.erase(userId: userId) }
/// ```
public struct ChatHistoryFeatureKit: FeatureKit {
    /// `chat-history`.
    public let name = "chat-history"
    /// The client it provides.
    public let client: ChatHistoryClient

    /// Builds the client (see ``ChatHistoryClient/init(rest:queue:environment:timeZone:syncPageSize:)``).
    public init(rest: RESTClient, queue: MutationQueue, environment: CacheEnvironment, timeZone: TimeZone) throws {
        client = try ChatHistoryClient(rest: rest, queue: queue, environment: environment, timeZone: timeZone)
    }

    /// Registers the client, its caches, timeouts, stale labels and mutations.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let client = self.client
        try registry.register(ChatHistoryClient.self) { _ in client }
        for participant in client.clearingParticipants { registry.addClearingParticipant(participant) }
        registry.addSync(client.sync)
        registry.declareMutation(ChatHistoryClient.Mutation.ask, .queueable)
        registry.declareMutation(ChatHistoryClient.Mutation.match, .queueable)
        registry.setDefaultTimeout(.never, forFeature: "chat.astro.chart")
        registry.setDefaultTimeout(.never, forFeature: "chat.astro.period")
        registry.setStaleIndicator(.lastUpdated(after: 3_600), forFeature: "chat.history")
    }
}
