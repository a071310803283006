import APICore
import CacheKit
import Logging

/// What the app can clear in the GraphQL cache (REQ ARC-5).
public protocol GraphQLCacheManaging: Sendable {
    /// Removes every record (logout, session expiry).
    func clearAll() async throws
    /// Removes every object a key provider tagged with exactly this account (`100` keeps `1002`),
    /// and the fields that referenced them, so queries reading them miss and refetch.
    func clear(forAccountId accountId: String) async throws
    /// Removes a query's root fields, so the next fetch goes to the network.
    func clear<Q: GraphQLQuery>(_ query: Q) async throws
    /// Removes one object (`Account:123`) and the fields that referenced it.
    func removeObject(forKey key: String) async throws
}

extension GraphQLClient: GraphQLCacheManaging, CacheClearingParticipant {
    /// The name in clearing reports (``Configuration/cacheName``).
    public var participantName: String { configuration.cacheName }
    /// `CacheCategory/graphQL`.
    public var category: CacheCategory { .graphQL }

    /// Removes every record and forgets the queries kept for refetch rules; a response or a
    /// mutation in flight is not written. Watchers stay open and quiet until their query is written
    /// again. The store then belongs to "signed out": the next user's first request clears it once
    /// more, so nothing written around the clear can ever be read by that user.
    public func clearAll() async throws {
        try state.withLock { state in
            state.generation += 1
            state.active = [:]
            state.owner = .some(nil)
            try cache.clearAll()
        }
    }

    /// Removes exactly this account's objects and the references to them; watchers that read them
    /// refetch. A response in flight is not written.
    public func clear(forAccountId accountId: String) async throws {
        let changed = try state.withLock { state in
            state.generation += 1
            return try cache.clear(forAccountId: accountId)
        }
        notifyWatchers(changed)
    }

    /// Removes a query's root fields.
    public func clear<Q: GraphQLQuery>(_ query: Q) async throws {
        let operation = try query.operation()
        let changed = try state.withLock { _ in try cache.removeRootFields(of: operation, variables: query.variables) }
        notifyWatchers(changed)
    }

    /// Removes one object and the references to it.
    public func removeObject(forKey key: String) async throws {
        let changed = try state.withLock { _ in try cache.removeObject(forKey: key) }
        notifyWatchers(changed)
    }

    /// Removes the object under `key` (`Account:123`), or the root field with that key
    /// (`account(id:"123")`): `UnifiedCacheManager/clearCache(forQuery:)`.
    public func clear(forKey key: String) async throws {
        let changed = try state.withLock { _ in
            try cache.removeObject(forKey: key).union(try cache.store.removeFields([RootKey.query: [key]]))
        }
        notifyWatchers(changed)
    }

    /// Makes every stored field stale, so each query is fetched again on next use.
    public func expireAll() async throws {
        try state.withLock { _ in try cache.store.expireAll() }
    }

    /// Evicts least recently used records until the store holds at most `bytes` (the app-wide budget).
    public func trim(toBytes bytes: Int) async throws {
        try state.withLock { _ in try cache.store.trim(toBytes: bytes) }
    }

    /// One row: the normalized store's counts (over every feature) and its records.
    public func statistics() async throws -> [CacheStoreStatistics] {
        let counts = environment.metrics.snapshot().filter { $0.store == "normalized" }
            .reduce(CacheStatistics(store: "normalized", feature: participantName), +)
        return [
            CacheStoreStatistics(
                participant: participantName, category: category, counts: counts,
                usage: try cache.store.usage())
        ]
    }

    /// One row per normalized record, redacted (keys, the owning user and accounts), without values.
    public func exportEntries() async throws -> [CacheExportEntry] {
        let owner = state.withLock { $0.owner ?? nil }
        return try cache.store.describeRecords().map { description in
            var description = description
            description.metadata.scope.userId = owner
            return CacheExportEntry(participant: participantName, store: "normalized", entry: description)
        }
    }
}

// One user's data at a time.
extension GraphQLClient {
    /// Makes sure the store holds only the signed-in user's data (see ``adopt(_:since:)``).
    /// A clearing that lands between the generation's read and the credentials' leaves the store alone: the session
    /// is asked again (three times at most), so what the read that follows finds is the session's now.
    func adoptCurrentUser() async {
        for _ in 0..<3 {
            let seen = generation
            if adopt(await configuration.tokenProvider?.currentCredentials()?.userId, since: seen) != nil { return }
        }
    }

    /// The store's generation now: read it before the credentials a request is sent with, and pass it to
    /// ``adopt(_:since:)``.
    var generation: Int { state.withLock { $0.generation } }

    /// The store is not partitioned by user: it holds one user's data at a time. The first user
    /// seen owns it; a request made for another user (or signed out) clears it first, so nothing
    /// of the previous user can be read even if the logout clear was missed. (A relaunch starts
    /// with no owner: a persistent store is cleared at logout by the ``UnifiedCacheManager``.)
    ///
    /// `seen` is the generation read before `userId`'s credentials were. When a clearing came since (a logout, another
    /// user's sign-in: the credentials may be of a session that has ended), the store is left as it is and `nil` is
    /// returned: a write for this request passes `seen`, which keeps it out. Otherwise the generation a write for this
    /// request must still find is returned: the store's new one when this adoption cleared it.
    @discardableResult
    func adopt(_ userId: String?, since seen: Int) -> Int? {
        let (generation, replaced) = state.withLock { state -> (Int?, String??) in
            guard state.generation == seen else { return (nil, nil) }
            guard let owner = state.owner else {
                state.owner = .some(userId)
                // First asked for by nobody (signed out, or a relaunch's session not yet allowed to be used: a token past
                // its offline limits while the server is asked): the records a file kept from an earlier launch are an
                // unknown user's, which no session may read. Cleared, as for another user.
                guard userId == nil else { return (state.generation, nil) }
                return (Self.clearForNextOwner(&state, cache: cache, logger: environment.logger), nil)
            }
            guard owner != userId else { return (state.generation, nil) }
            state.owner = .some(userId)
            return (Self.clearForNextOwner(&state, cache: cache, logger: environment.logger), owner)
        }
        if replaced != nil {
            environment.logger.notice("Cleared the GraphQL cache: a request came for another user")
        }
        return generation
    }

    /// Moves the generation on, forgets the queries kept for refetch rules and clears the records; returns the new
    /// generation.
    private static func clearForNextOwner(_ state: inout State, cache: NormalizedCache, logger: Logger) -> Int {
        state.generation += 1
        state.active = [:]
        do {
            try cache.clearAll()
        } catch {
            logger.error("Could not clear the previous user's GraphQL data", metadata: ["error": "\(error)"])
        }
        return state.generation
    }
}
