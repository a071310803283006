import APICore
import APICoreREST
import CacheKit
import Logging

/// What a watcher delivers: a result, or the error of its first fetch or of a refetch.
public typealias GraphQLWatchEvent = Result<GraphQLResult, APIError>

extension GraphQLClient {
    /// Watches a query: delivers its result under `policy` (with
    /// `CachePolicy/returnCacheDataAndFetch`, the cached result and then the server's), then again
    /// whenever a field it read changes, whether by another query, a mutation, an optimistic update
    /// or a local write. Unrelated changes deliver nothing, nor does a write that leaves its data as
    /// it was. When an object it read is removed (an account cleared), it refetches. The watch ends
    /// when the consumer stops iterating.
    public func watch<Q: GraphQLQuery>(_ query: Q, policy: CachePolicy = .default, timeout: CacheTimeout? = nil)
        -> AsyncStream<GraphQLWatchEvent>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: GraphQLWatchEvent.self)
        let operation: GraphQLOperation
        do {
            operation = try query.operation()
        } catch {
            continuation.yield(.failure(error))
            continuation.finish()
            return stream
        }
        let watcher = Watcher(
            continuation: continuation, clock: environment.clock,
            read: { [cache] in
                Result { () throws(CacheReadMiss) in try cache.read(operation, variables: query.variables) }
            },
            refetch: { [weak self] in
                guard let self else { return .failure(.cancelled) }
                return await catching { () async throws(APIError) in try await self.fetch(query, timeout: timeout) }
            })
        let id = state.withLock { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = watcher
            return state.nextWatcher
        }
        let task = Task {
            if policy == .returnCacheDataAndFetch {
                switch self.readFromCache(query, operation, timeout: timeout) {
                case .fresh(let result), .stale(let result): watcher.deliver(.success(result))
                case .miss: break
                }
                watcher.deliver(
                    await catching { () async throws(APIError) in
                        GraphQLResult(
                            data: try await self.network(query, operation, store: true), source: .network,
                            freshness: .fetched(at: self.environment.clock.now()))
                    })
            } else {
                watcher.deliver(
                    await catching { () async throws(APIError) in
                        try await self.fetch(query, policy: policy, timeout: timeout)
                    })
            }
            _ = watcher.deliverFromStore(refetchOnMiss: false)
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many watchers are active.
    public var watcherCount: Int { state.withLock { $0.watchers.count } }

    /// Re-reads every watcher that read one of `changed` and delivers what differs.
    func notifyWatchers(_ changed: Set<FieldPath>) {
        let watchers = state.withLock { Array($0.watchers.values) }
        for watcher in watchers where watcher.isAffected(by: changed) {
            guard watcher.deliverFromStore(refetchOnMiss: true) else { continue }
            Task {
                let result = await watcher.refetch()
                watcher.finishRefetch(result)
            }
        }
    }
}

/// One active ``GraphQLClient/watch(_:policy:timeout:)``: what it read, what it last delivered.
final class Watcher: Sendable {
    private struct Status {
        var dependencies: Set<FieldPath> = []
        var last: [String: JSONValue]?
        var refetching = false
    }

    private let status = Locked(Status())
    private let continuation: AsyncStream<GraphQLWatchEvent>.Continuation
    private let read: @Sendable () -> Result<NormalizedCache.ReadResult, CacheReadMiss>
    private let clock: any CacheClock
    let refetch: @Sendable () async -> GraphQLWatchEvent

    init(
        continuation: AsyncStream<GraphQLWatchEvent>.Continuation, clock: any CacheClock,
        read: @escaping @Sendable () -> Result<NormalizedCache.ReadResult, CacheReadMiss>,
        refetch: @escaping @Sendable () async -> GraphQLWatchEvent
    ) {
        self.continuation = continuation
        self.clock = clock
        self.read = read
        self.refetch = refetch
    }

    func isAffected(by changed: Set<FieldPath>) -> Bool {
        status.withLock { !$0.dependencies.isDisjoint(with: changed) }
    }

    /// Delivers a fetched result (or error).
    func deliver(_ event: GraphQLWatchEvent) {
        status.withLock { status in
            if case .success(let result) = event { status.last = result.data }
            continuation.yield(event)
        }
    }

    /// Re-reads the query from the store and delivers it when it differs from the last delivery.
    /// - Returns: whether the read missed and a refetch should start (at most one at a time).
    func deliverFromStore(refetchOnMiss: Bool) -> Bool {
        status.withLock { status in
            switch read() {
            case .success(let result):
                status.dependencies = result.dependencies
                guard status.last != result.data else { return false }
                status.last = result.data
                // Delivered because a field it reads was just written.
                let now = clock.now()
                continuation.yield(
                    .success(
                        GraphQLResult(
                            data: result.data, source: .cache,
                            freshness: Freshness(.fresh, storedAt: result.oldestWrite ?? now, now: now))))
                return false
            case .failure:
                guard refetchOnMiss, !status.refetching else { return false }
                status.refetching = true
                return true
            }
        }
    }

    /// Ends a refetch: its error is delivered; its data arrived through the store.
    func finishRefetch(_ result: GraphQLWatchEvent) {
        status.withLock { $0.refetching = false }
        if case .failure(let error) = result {
            continuation.yield(.failure(error))
        } else {
            _ = deliverFromStore(refetchOnMiss: false)
        }
    }
}

/// The outcome of an async throwing call as a `Result`.
func catching<T>(_ body: () async throws(APIError) -> T) async -> Result<T, APIError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
