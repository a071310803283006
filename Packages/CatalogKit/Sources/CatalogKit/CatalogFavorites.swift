import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

/// The signed-in user's favorite funnels, offline first: a change is saved in the app's
/// `MutationQueue` at once (the toast says "Will sync when online" while it waits) and reaches the
/// server once, in order, when the network allows, with the user's token only.
///
/// ```swift
/// let favorites = CatalogFavorites(client: catalog, queue: queue)
/// try await favorites.setFavorite("sleep-check", true)      // queued, sent when online
/// let slugs = try await favorites.favorites().value          // from the server
/// ```
public struct CatalogFavorites: Sendable {
    /// The queued mutation that adds a favorite (declared `MutationPolicy/queueable`).
    public static let addMutation = "AddFavorite"
    /// The queued mutation that removes one (declared `MutationPolicy/queueable`).
    public static let removeMutation = "RemoveFavorite"

    private let client: CatalogClient
    /// The queue changes wait in.
    public let queue: MutationQueue

    /// Creates the use cases over the catalog's client and the app's queue (whose REST client is
    /// the app's, signed in as the user).
    public init(client: CatalogClient, queue: MutationQueue) {
        self.client = client
        self.queue = queue
    }

    /// The user's favorite slugs, sorted, from the server (never served stale: `no-cache`).
    /// - Throws: ``CatalogError/api(_:)``.
    public func favorites() async throws(CatalogError) -> APIResponse<[String]> {
        struct Favorites: Decodable, Sendable { var slugs: [String] }
        do {
            let response = try await client.rest.send(
                APIRequest<Favorites>(
                    path: "/api/favorites", feature: CatalogFeature.catalog, decode: DataEnvelope.decode))
            return response.map(\.slugs)
        } catch {
            throw CatalogError(error)
        }
    }

    /// Adds or removes a favorite: queued (on disk when this returns), then sent in order.
    /// - Returns: the queued change.
    /// - Throws: ``CatalogError/invalidSlug(_:)`` before anything is queued;
    ///   ``CatalogError/queue(_:)`` when nobody is signed in or the queue cannot be written.
    @discardableResult
    public func setFavorite(_ slug: String, _ isFavorite: Bool) async throws(CatalogError) -> QueuedMutation {
        try CatalogClient.validate(slug: slug)
        do {
            return try await queue.enqueue(
                .rest(method: isFavorite ? .put : .delete, path: PathSegments.path("api", "favorites", slug), headerFields: [:], body: nil),
                name: isFavorite ? Self.addMutation : Self.removeMutation)
        } catch {
            throw .queue(error)
        }
    }
}
