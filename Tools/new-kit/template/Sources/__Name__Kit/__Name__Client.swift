import APICore
import CacheKit
import Foundation
import HTTPTypes

/// The __name__ feature's use cases, over the app's REST client: reads go through its HTTP cache,
/// changes through the app's mutation queue (offline first).
public final class __Name__Client: Sendable {
    /// The feature name: the settings file's key, the metrics dimension, the stale label's key.
    public static let feature = "__name__"
    /// The queued mutation that adds an item (declared queueable by the kit).
    public static let addMutation = "Add__Name__Item"

    private let rest: RESTClient
    private let queue: MutationQueue?

    /// Creates the use cases.
    /// - Parameters:
    ///   - rest: the app's REST client (signed in as the user).
    ///   - queue: the app's mutation queue, for ``add(title:)``; `nil` when the app has none.
    public init(rest: RESTClient, queue: MutationQueue? = nil) {
        self.rest = rest
        self.queue = queue
    }

    /// The items, cache first: fresh for 5 minutes (`Cacheable`), then revalidated with the server's
    /// validators. The response says how old it is (`freshness`).
    /// - Throws: ``APIError``.
    public func items(policy: CachePolicy = .default) async throws(APIError) -> APIResponse<[__Name__Item]> {
        try await rest.send(APIRequest<[__Name__Item]>(
            path: "/api/__name__", cacheable: Cacheable(key: "__name__.items", timeout: .seconds(300)), feature: Self.feature),
            policy: policy)
    }

    /// The items this device saw last, however old, labelled offline (for a screen that could not load).
    public func lastKnownItems() async -> APIResponse<[__Name__Item]>? {
        await rest.lastKnown(APIRequest<[__Name__Item]>(path: "/api/__name__", feature: Self.feature))
    }

    /// Adds an item: queued on disk at once, sent in order when the network allows, once.
    /// - Throws: ``MutationQueueError``; `.signedOut` with no queue.
    @discardableResult
    public func add(title: String) async throws(MutationQueueError) -> QueuedMutation {
        guard let queue else { throw .signedOut }
        let body = JSONValue.object(["title": .string(title)]).serialized()
        return try await queue.enqueue(.rest(method: .post, path: "/api/__name__", headerFields: [.contentType: "application/json"],
                                             body: body), name: Self.addMutation)
    }
}
