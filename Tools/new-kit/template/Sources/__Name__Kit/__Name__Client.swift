import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

/// The __name__ feature's use cases: lists over the app's REST client (its HTTP cache), one item over its
/// GraphQL client (the normalized cache, keyed by ``__Name__Keys``), the user's draft in a cache of the
/// kit's own (``drafts``), and changes through the app's mutation queue (offline first).
public final class __Name__Client: Sendable {
    /// The feature name: the settings file's key, the metrics dimension, the stale label's key.
    public static let feature = "__name__"
    /// The queued mutation that adds an item (declared queueable by the kit).
    public static let addMutation = "Add__Name__Item"

    private let rest: RESTClient
    private let graphQL: GraphQLClient?
    private let queue: MutationQueue?
    /// The user's unsent draft, on disk, scoped to the user; a clearing participant, so logout removes it.
    public let drafts: CacheManager<String>

    /// Creates the use cases.
    /// - Parameters:
    ///   - rest: the app's REST client (signed in as the user).
    ///   - graphQL: the app's GraphQL client, for ``item(id:policy:)``; `nil` when the app has none.
    ///   - drafts: the kit's own cache (the feature kit creates it from the app's `CacheEnvironment`).
    ///   - queue: the app's mutation queue, for ``add(title:)``; `nil` when the app has none.
    public init(rest: RESTClient, graphQL: GraphQLClient? = nil, drafts: CacheManager<String>, queue: MutationQueue? = nil) {
        self.rest = rest
        self.graphQL = graphQL
        self.drafts = drafts
        self.queue = queue
    }

    /// The items, cache first: fresh for 5 minutes (`Cacheable`), then revalidated with the server's
    /// validators. The response says how old it is (`freshness`).
    /// - Throws: `APIError`.
    public func items(policy: CachePolicy = .default) async throws(APIError) -> APIResponse<[__Name__Item]> {
        try await rest.send(APIRequest<[__Name__Item]>(
            path: "/api/__name__", cacheable: Cacheable(key: "__name__.items", timeout: .seconds(300)), feature: Self.feature),
            policy: policy)
    }

    /// The items this device saw last, however old, labelled offline (for a screen that could not load).
    public func lastKnownItems() async -> APIResponse<[__Name__Item]>? {
        await rest.lastKnown(APIRequest<[__Name__Item]>(path: "/api/__name__", feature: Self.feature))
    }

    /// One item over GraphQL, cache first (the feature's timeout), stored once under `__Name__Item:<id>`; a
    /// cache hit decodes straight from the stored records (`fetch(_:as:)`).
    /// - Throws: `APIError`; `.notCached` under `.returnCacheDataDontFetch` when it is not stored.
    public func item(id: String, policy: CachePolicy = .default) async throws(APIError) -> __Name__Item {
        guard let graphQL else { throw .notCached() }
        return try await graphQL.fetch(__Name__ItemQuery(id: id), as: __Name__ItemData.self, policy: policy).value.__name__Item
    }

    /// Keeps the signed-in user's draft (their own entry: another user never reads it).
    /// - Throws: `MutationQueueError/signedOut` when nobody is signed in; `CacheError` when it cannot be stored.
    public func saveDraft(_ text: String) async throws {
        let user = try await signedInUser()
        try await drafts.set(text, forKey: "draft:\(user)", scope: .user(user), timeout: .never)
    }

    /// The signed-in user's draft, if any.
    /// - Throws: `MutationQueueError/signedOut` when nobody is signed in.
    public func draft() async throws -> String? {
        let user = try await signedInUser()
        return await drafts.value(forKey: "draft:\(user)", requester: user)
    }

    private func signedInUser() async throws(MutationQueueError) -> String {
        guard let user = await rest.configuration.tokenProvider?.currentCredentials()?.userId else { throw .signedOut }
        return user
    }

    /// Adds an item: queued on disk at once, sent in order when the network allows, once.
    /// - Throws: `MutationQueueError`; `.signedOut` with no queue.
    @discardableResult
    public func add(title: String) async throws(MutationQueueError) -> QueuedMutation {
        guard let queue else { throw .signedOut }
        let body = JSONValue.object(["title": .string(title)]).serialized()
        return try await queue.enqueue(.rest(method: .post, path: "/api/__name__", headerFields: [.contentType: "application/json"],
                                             body: body), name: Self.addMutation)
    }
}

/// The GraphQL answer of ``__Name__ItemQuery``.
struct __Name__ItemData: Decodable, Sendable {
    var __name__Item: __Name__Item
}
