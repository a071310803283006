import APICore
import APICoreREST
import CacheKit
import Logging

/// The catalog screen's model (REQ AUTH-4, with the catalog's pagination, REQ CAT): what the
/// list shows, as a stream of states.
///
/// - ``load()`` shows the cached first page at once when it is fresh, then asks the server in the
///   background (a 304 when nothing changed) and delivers the update; with nothing cached it shows
///   a loading state first.
/// - ``refresh()`` is pull-to-refresh: it bypasses the cache and always reaches the server.
/// - ``scrolled(to:)`` fetches the next page past 80% (``CatalogPrefetch``); a refused cursor clears
///   the listing's pages and restarts from the first page, once.
/// - ``setFilter(_:)`` clears the catalog cache (an app setting changed) and loads the new listing.
/// - Offline, what is shown stays with an offline ``State/status`` (or the last page the user saw is
///   shown); with ``refreshesWhenOnline(_:)`` the list loads again by itself when the network returns.
///
/// ```swift
/// let model = CatalogListModel(client: catalog)
/// Task { for await state in await model.states() { render(state) } }
/// await model.load()
/// ```
public actor CatalogListModel {
    /// What the list is doing.
    public enum Phase: Sendable, Hashable {
        /// Nothing in flight.
        case idle
        /// Nothing to show yet; the first page is being fetched.
        case loading
        /// Showing what it has while the first page is fetched again.
        case refreshing
        /// Fetching the next page.
        case loadingMore
    }

    /// What the list shows.
    public struct State: Sendable, Hashable {
        /// The filter in force.
        public var filter: CatalogFilter
        /// The pages shown, joined.
        public var listing = CatalogListing()
        /// What is in flight.
        public var phase = Phase.idle
        /// Whether the first page shown is the cached one, not yet confirmed by the server.
        public var isFromCache = false
        /// How old the first page shown is, with the label to show beside it ("Offline · last
        /// updated 3 h ago"); `nil` while nothing is shown.
        public var status: DataStatus?
        /// The last failure, cleared by the next success.
        public var error: CatalogError?
    }

    private let client: CatalogClient
    private let limit: Int
    private var state: State
    private var subscribers: [Int: AsyncStream<State>.Continuation] = [:]
    private var nextSubscriber = 0
    /// Bumped when the listing is replaced (filter change, refresh): answers to older requests are dropped.
    private var generation = 0
    private var reconnection: Task<Void, Never>?
    private let screens: ScreenTelemetry?
    private var visit: ScreenTelemetry.Visit?

    /// The screen's name in telemetry.
    public static let screen = "catalog"

    /// Creates a model.
    /// - Parameters:
    ///   - client: the catalog's client.
    ///   - limit: items per page, 1 to 100 (out of range, every load reports ``CatalogError/invalidLimit(_:)``).
    ///   - filter: the initial filter.
    ///   - screens: where the screen reports its time-to-interactive (by the source of its first page), its
    ///     time on screen (until ``disappeared()``) and the `catalog` funnel stage; `nil` for nowhere.
    public init(
        client: CatalogClient, limit: Int = CatalogClient.defaultLimit, filter: CatalogFilter = CatalogFilter(),
        screens: ScreenTelemetry? = nil
    ) {
        self.client = client
        self.limit = limit
        self.screens = screens
        state = State(filter: filter)
    }

    /// The screen left: ends its visit (time on screen). The next ``load()`` starts a new one.
    public func disappeared() {
        if let visit { screens?.disappeared(visit) }
        visit = nil
    }

    private func startVisit() {
        guard visit == nil, let screens else { return }
        visit = screens.appeared(Self.screen)
        screens.reached(Self.screen)
    }

    private func displayed(from source: ResponseSource) {
        if let visit { screens?.displayed(visit, from: source == .cache ? .cache : .network) }
    }

    /// The current state.
    public var current: State { state }

    /// Loads again each time the network returns while what is shown is offline data (a stale screen
    /// refreshes by itself), for as long as the model lives.
    public func refreshesWhenOnline(_ connectivity: any Connectivity) {
        reconnection?.cancel()
        reconnection = connectivity.whenOnlineAgain { [weak self] in await self?.reloadIfOffline() }
    }

    private func reloadIfOffline() async {
        guard state.status?.isOffline == true || state.error.map(CatalogError.isOffline) == true else { return }
        await load()
    }

    deinit {
        reconnection?.cancel()
    }

    /// The current state, then every change.
    public func states() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .unbounded)
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// Shows the first page: the cached one at once when fresh, then the server's answer.
    public func load() async {
        let generation = self.generation
        startVisit()
        publish { $0.phase = $0.listing.pageCount == 0 ? .loading : .refreshing }
        do {
            for try await update in client.pageUpdates(limit: limit, filter: state.filter) {
                guard generation == self.generation else { return }
                displayed(from: update.source)
                publish { state in
                    // A 304 confirms what is shown, so the pages after the first stay; anything else
                    // replaces them (their cursors may belong to an older catalog).
                    if update.source == .revalidated, state.listing.pageCount > 0 {
                        state.listing.sources[.revalidated, default: 0] += 1
                    } else {
                        state.listing = Self.listing(startingWith: update)
                    }
                    state.isFromCache = update.source == .cache
                    state.status = DataStatus(update.freshness, indicator: client.timeouts.staleIndicator)
                    state.phase = update.source == .cache ? .refreshing : .idle
                    state.error = nil
                }
            }
        } catch {
            await showLastKnown(after: error, generation: generation)
            fail(error, generation: generation)
        }
    }

    /// After a failed load: what is shown stays, now labelled offline; with nothing shown, the last
    /// page the user saw, however old (last known data, labelled offline with its age).
    private func showLastKnown(after error: any Error, generation: Int) async {
        guard generation == self.generation, CatalogError.isOffline(error) else { return }
        if state.listing.pageCount > 0, let status = state.status {
            publish { $0.status = DataStatus(status.freshness.offline, indicator: client.timeouts.staleIndicator) }
            return
        }
        guard let last = await client.lastKnownPage(limit: limit, filter: state.filter),
            generation == self.generation
        else { return }
        displayed(from: .cache)
        publish { state in
            state.listing = Self.listing(startingWith: last)
            state.isFromCache = true
            state.status = DataStatus(last.freshness, indicator: client.timeouts.staleIndicator)
        }
    }

    /// Pull-to-refresh: the first page from the server, whatever is cached; the pages after it go.
    public func refresh() async {
        generation += 1
        publish { $0.phase = $0.listing.pageCount == 0 ? .loading : .refreshing }
        await reloadFirstPage(generation: generation, restarts: 0)
    }

    /// Tells the model how far the user has scrolled (0 to 1); past 80% it fetches the next page.
    public func scrolled(to progress: Double) async {
        guard
            CatalogPrefetch.shouldFetchNextPage(
                scrollProgress: progress, hasMore: state.listing.hasMore,
                isFetching: state.phase != .idle)
        else { return }
        await loadMore()
    }

    /// Fetches the next page, cache first. A refused cursor clears the listing's cached pages and
    /// restarts from the first page (from the server), once; a second refusal is reported.
    public func loadMore() async {
        guard let cursor = state.listing.nextCursor, state.phase == .idle else { return }
        let generation = self.generation
        publish { $0.phase = .loadingMore }
        do throws(CatalogError) {
            let response = try await client.page(cursor: cursor, limit: limit, filter: state.filter)
            guard generation == self.generation else { return }
            publish { state in
                state.listing.append(response.value)
                state.listing.sources[response.source, default: 0] += 1
                state.phase = .idle
                state.error = nil
            }
        } catch {
            guard case .invalidCursor = error, state.listing.restarts == 0, generation == self.generation else {
                return fail(error, generation: generation)
            }
            await client.clearListing(limit: limit, filter: state.filter)
            await reloadFirstPage(generation: generation, restarts: 1)
        }
    }

    /// Changes the filter: the catalog cache is cleared (its pages, details and definitions belong
    /// to the old setting) and the new listing loaded. The same filter again does nothing.
    public func setFilter(_ filter: CatalogFilter) async {
        guard filter != state.filter else { return }
        generation += 1
        publish { state in state = State(filter: filter) }
        do {
            try await client.clearCatalog()
        } catch {
            client.logError("Could not clear the catalog cache", error)
        }
        await load()
    }

    // MARK: Steps

    /// The first page from the server, replacing every page shown (pull-to-refresh, or a restart
    /// after a refused cursor).
    private func reloadFirstPage(generation: Int, restarts: Int) async {
        do throws(CatalogError) {
            let response = try await client.page(limit: limit, filter: state.filter, policy: .fetchIgnoringCacheData)
            guard generation == self.generation else { return }
            publish { state in
                state.listing = Self.listing(startingWith: response, restarts: restarts)
                state.isFromCache = false
                state.status = DataStatus(response.freshness, indicator: client.timeouts.staleIndicator)
                state.phase = .idle
                state.error = nil
            }
        } catch {
            fail(error, generation: generation)
        }
    }

    private static func listing(startingWith response: APIResponse<CatalogPage>, restarts: Int = 0) -> CatalogListing {
        var listing = CatalogListing()
        listing.append(response.value)
        listing.sources[response.source] = 1
        listing.restarts = restarts
        return listing
    }

    private func fail(_ error: any Error, generation: Int) {
        guard generation == self.generation else { return }
        let failure = error as? CatalogError ?? .api(error as? APIError ?? .transport(.other(reason: "\(error)")))
        publish { state in
            state.phase = .idle
            state.error = failure
        }
    }

    private func publish(_ change: (inout State) -> Void) {
        change(&state)
        for continuation in subscribers.values { continuation.yield(state) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }
}
