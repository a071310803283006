import APICore
import APICoreREST
import CacheKit
import Foundation
import Logging

/// The catalog's use cases (REQ CAT), over a REST client of the kit's own
/// whose HTTP cache is the catalog's: it shares the app's transport, session, auth events and cache
/// environment, and is cleared, counted and inspected as the `catalog` participant.
///
/// ```swift
/// let catalog = CatalogClient(sharing: rest.configuration)
/// unified.register(catalog.cacheParticipant)
/// let listing = try await catalog.allPages()              // cache first, 5 minutes
/// let fresh = try await catalog.page(policy: .fetchIgnoringCacheData)   // pull-to-refresh
/// ```
///
/// Every use case takes an optional `CachePolicy` (cache first by default). A stored response past
/// its timeout is revalidated with its `ETag` and `Last-Modified`; a 304 keeps the stored body and
/// counts as bandwidth saved. Pages, details and definitions are kept on disk too, so a relaunch
/// shows them at once.
public final class CatalogClient: Sendable {
    /// The largest page the server gives.
    public static let limits = 1...100
    /// The page size when none is given (REQ CAT-1: 50).
    public static let defaultLimit = 50
    /// The catalog cache's participant name.
    public static let participantName = "catalog"

    /// The REST client the catalog's requests go through.
    public let rest: RESTClient
    /// The declared timeouts.
    public let timeouts: CatalogTimeouts

    /// Creates the catalog's client from the app's REST configuration: same server, transport,
    /// token provider, auth events and environment, with a cache of its own named `catalog`.
    public init(sharing configuration: RESTClient.Configuration, timeouts: CatalogTimeouts = CatalogTimeouts()) {
        var configuration = configuration
        configuration.cacheName = Self.participantName
        rest = RESTClient(configuration: configuration)
        self.timeouts = timeouts
    }

    /// The catalog's cache, for the app's `UnifiedCacheManager` (cleared at logout like every cache).
    public var cacheParticipant: any CacheClearingParticipant { rest.cacheParticipant }

    // MARK: Use cases

    /// One page of the catalog.
    ///
    /// - Parameters:
    ///   - cursor: the previous page's `nextCursor`; `nil` for the first page.
    ///   - limit: items per page, 1 to 100.
    ///   - filter: which funnels the listing shows.
    ///   - policy: how the cache is used; `CachePolicy/fetchIgnoringCacheData` for pull-to-refresh.
    /// - Throws: ``CatalogError/invalidLimit(_:)`` before any request; ``CatalogError/invalidCursor(message:)``
    ///   when the server refuses the cursor; ``CatalogError/api(_:)`` otherwise.
    public func page(
        cursor: String? = nil, limit: Int = defaultLimit, filter: CatalogFilter = CatalogFilter(),
        policy: CachePolicy = .default
    ) async throws(CatalogError) -> APIResponse<CatalogPage> {
        let request = try pageRequest(cursor: cursor, limit: limit, filter: filter)
        do {
            return try await rest.send(request, policy: policy)
        } catch {
            throw CatalogError(error)
        }
    }

    /// The last page the user saw, however old, labelled offline with its age; `nil` when none is
    /// stored. Never sends a request: for a screen that could not load (the catalog's pages are
    /// `must-revalidate`, so they are never served stale as HTTP responses; shown as last known
    /// data they are, like a browser's history).
    public func lastKnownPage(
        cursor: String? = nil, limit: Int = defaultLimit,
        filter: CatalogFilter = CatalogFilter()
    ) async -> APIResponse<CatalogPage>? {
        guard let request = try? pageRequest(cursor: cursor, limit: limit, filter: filter) else { return nil }
        return await rest.lastKnown(request)
    }

    /// Every page of the catalog, joined in order with no duplicate and no gap. When the server
    /// refuses a cursor (`INVALID_CURSOR`: the catalog changed under the listing), the listing's
    /// cached pages are cleared and the walk restarts from the first page, once.
    ///
    /// - Parameters:
    ///   - limit: items per page, 1 to 100.
    ///   - filter: which funnels the listing shows.
    ///   - policy: how the cache is used for each page.
    /// - Throws: as ``page(cursor:limit:filter:policy:)``; ``CatalogError/invalidCursor(message:)``
    ///   only when the restarted walk is refused too.
    public func allPages(
        limit: Int = defaultLimit, filter: CatalogFilter = CatalogFilter(),
        policy: CachePolicy = .default
    ) async throws(CatalogError) -> CatalogListing {
        var restarts = 0
        while true {
            var listing = CatalogListing()
            listing.restarts = restarts
            do throws(CatalogError) {
                repeat {
                    let response = try await page(cursor: listing.nextCursor, limit: limit, filter: filter, policy: policy)
                    listing.sources[response.source, default: 0] += 1
                    listing.append(response.value)
                } while listing.hasMore
                return listing
            } catch .invalidCursor(let message) {
                guard restarts == 0 else { throw .invalidCursor(message: message) }
                restarts += 1
                await clearListing(limit: limit, filter: filter)
            }
        }
    }

    /// Stale-while-revalidate for one page: the cached page at once when it is fresh, then the
    /// server's answer (a 304 when nothing changed), which is stored. The stream ends after the
    /// server's answer, or with a ``CatalogError``.
    public func pageUpdates(cursor: String? = nil, limit: Int = defaultLimit, filter: CatalogFilter = CatalogFilter())
        -> AsyncThrowingStream<APIResponse<CatalogPage>, any Error>
    {
        let request: APIRequest<CatalogPage>
        do {
            request = try pageRequest(cursor: cursor, limit: limit, filter: filter)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let updates = rest.updates(for: request)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await update in updates { continuation.yield(update) }
                    continuation.finish()
                } catch let error as APIError {
                    continuation.finish(throwing: CatalogError(error))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A funnel's detail (`GET /api/funnels/catalog/<slug>`), fresh for ``CatalogTimeouts/detail``.
    /// - Throws: ``CatalogError/invalidSlug(_:)`` before any request, ``CatalogError/notFound(slug:)``,
    ///   ``CatalogError/api(_:)``.
    public func funnel(slug: String, policy: CachePolicy = .default) async throws(CatalogError) -> APIResponse<CatalogFunnel> {
        try Self.validate(slug: slug)
        let request = APIRequest<CatalogFunnel>(
            path: PathSegments.path("api", "funnels", "catalog", slug),
            cacheable: Cacheable(key: "catalog.detail:\(slug)", timeout: timeouts.detail, isUplifted: true),
            feature: CatalogFeature.detail, decode: DataEnvelope.decode)
        do {
            return try await rest.send(request, policy: policy)
        } catch {
            throw CatalogError(error, slug: slug)
        }
    }

    /// A funnel's definition (`GET /api/funnels/<slug>/definition`), fresh for
    /// ``CatalogTimeouts/definition``.
    /// - Throws: as ``funnel(slug:policy:)``.
    public func definition(slug: String, policy: CachePolicy = .default) async throws(CatalogError)
        -> APIResponse<FunnelDefinition>
    {
        try Self.validate(slug: slug)
        let request = APIRequest<FunnelDefinition>(
            path: PathSegments.path("api", "funnels", slug, "definition"),
            cacheable: Cacheable(key: "catalog.definition:\(slug)", timeout: timeouts.definition, isUplifted: true),
            feature: CatalogFeature.definition, decode: DataEnvelope.decode)
        do {
            return try await rest.send(request, policy: policy)
        } catch {
            throw CatalogError(error, slug: slug)
        }
    }

    // MARK: Clearing

    /// Removes the cached pages of one listing (after `INVALID_CURSOR`). A failure to remove them
    /// from disk is logged; the entries are unreadable to the listing either way once restarted
    /// from the network.
    public func clearListing(limit: Int = defaultLimit, filter: CatalogFilter = CatalogFilter()) async {
        do {
            try await cacheParticipant.clear(forKey: Self.listingKey(limit: limit, filter: filter))
        } catch {
            logError("Could not clear a catalog listing", error)
        }
    }

    /// Removes everything the catalog cached: pages, details, definitions, in memory and on disk (an
    /// app setting such as the filter changed).
    /// - Throws: the disk store's error when the files could not be removed.
    public func clearCatalog() async throws {
        try await cacheParticipant.clearAll()
    }

    /// Logs a failure the caller cannot act on.
    func logError(_ message: Logger.Message, _ error: any Error) {
        rest.configuration.environment.logger.error(message, metadata: ["error": "\(error)"])
    }

    // MARK: Requests

    /// The cache name of one listing's pages: clearing it removes every page of that listing.
    static func listingKey(limit: Int, filter: CatalogFilter) -> String {
        "catalog.listing:\(filter.cacheName):limit=\(limit)"
    }

    private func pageRequest(cursor: String?, limit: Int, filter: CatalogFilter) throws(CatalogError) -> APIRequest<CatalogPage> {
        guard Self.limits.contains(limit) else { throw .invalidLimit(limit) }
        var query = [URLQueryItem(name: "limit", value: String(limit))] + filter.queryItems
        if let cursor, !cursor.isEmpty { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return APIRequest(
            path: "/api/funnels/catalog", query: query,
            cacheable: Cacheable(key: Self.listingKey(limit: limit, filter: filter), timeout: timeouts.catalog, isUplifted: true),
            feature: CatalogFeature.catalog, decode: CatalogPage.decodeEnvelope)
    }

    /// A slug is 1 to 200 letters, digits, `-`, `_` or `.`, and not `.` or `..` (it becomes a path
    /// segment, so anything else could reach another route).
    static func validate(slug: String) throws(CatalogError) {
        let allowed = slug.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ".")].contains(byte)
        }
        guard allowed, (1...200).contains(slug.utf8.count), slug != ".", slug != ".." else { throw .invalidSlug(slug) }
    }
}
