import APICore
import APICoreREST
import CacheKit
import Foundation

/// A query's data decoded into a kit's own type, and where it came from.
public struct GraphQLValue<Value: Sendable>: Sendable {
    /// The decoded data.
    public var value: Value
    /// `ResponseSource/cache` or `ResponseSource/network`.
    public var source: ResponseSource
    /// When the data was stored, its age, and whether it is fresh, stale or offline.
    public var freshness: Freshness

    /// Creates a value.
    public init(value: Value, source: ResponseSource, freshness: Freshness) {
        self.value = value
        self.source = source
        self.freshness = freshness
    }

    /// Whether the data is older than its timeout (stale or offline).
    public var isStale: Bool { freshness.isStale }
}

extension GraphQLClient {
    /// Fetches `query` and decodes its data into `T` (shaped like the operation, aliases as keys).
    ///
    /// A fresh cache hit decodes straight from the normalized records, with no intermediate tree and no
    /// JSON: the cheapest way to read a cached query. Presence and freshness are then judged by the fields
    /// `T` decodes. Anything else (a miss, stale data, a record that does not fit `T`, another policy)
    /// goes through ``fetch(_:policy:timeout:)`` and decodes its result, with the same errors and the same
    /// offline and stale rules.
    ///
    /// ```swift
    /// let accounts = try await graphQL.fetch(AccountsQuery(), as: AccountsData.self)
    /// show(accounts.value.accounts, label: accounts.freshness)
    /// ```
    /// - Throws: what ``fetch(_:policy:timeout:)`` throws, and `APIError/decoding(path:reason:)` when the
    ///   data does not fit `T`.
    public func fetch<Q: GraphQLQuery, T: Decodable & Sendable>(
        _ query: Q, as type: T.Type, policy: CachePolicy = .default, timeout: CacheTimeout? = nil
    ) async throws(APIError) -> GraphQLValue<T> {
        if policy == .returnCacheDataElseFetch || policy == .returnCacheDataDontFetch,
            let hit = await freshTypedHit(query, as: T.self, timeout: timeout)
        {
            return hit
        }
        let result = try await fetch(query, policy: policy, timeout: timeout)
        do {
            return GraphQLValue(value: try result.decode(T.self), source: result.source, freshness: result.freshness)
        } catch {
            recordError(error, operation: (try? query.operation())?.name)
            throw error
        }
    }

    /// The query decoded from the records when every field `T` reads is stored and fresh; otherwise `nil`,
    /// and the tree path decides (and reports) what happens.
    private func freshTypedHit<Q: GraphQLQuery, T: Decodable & Sendable>(_ query: Q, as type: T.Type, timeout: CacheTimeout?) async
        -> GraphQLValue<T>?
    {
        let started = ContinuousClock.now
        guard let operation = try? query.operation() else { return nil }
        await adoptCurrentUser()
        let read: (value: T, oldestWrite: Date?)
        do {
            read = try cache.decode(T.self, operation, variables: query.variables)
        } catch {
            return nil
        }
        let freshness = freshness(of: Q.self, oldestWrite: read.oldestWrite, timeout: timeout)
        guard !freshness.isStale else { return nil }
        remember(query, operation)
        environment.metrics.metrics(store: "normalized", feature: Q.feature).recordHit()
        environment.metrics.latency(feature: Q.feature, source: .cache).record(ContinuousClock.now - started)
        return GraphQLValue(value: read.value, source: .cache, freshness: freshness)
    }
}
