import APICore
import APICoreREST
import CacheKit
import Foundation
import Logging

/// What a mutation returned, and the refetches its kit's rules asked for.
public struct MutationResult: Sendable {
    /// The mutation's data, already normalized into the store.
    public var data: [String: JSONValue]
    /// The refetches that finished before ``GraphQLClient/perform(_:optimisticResponse:idempotencyKey:owner:)`` returned:
    /// strategy 1's queries, strategy 2's critical ones.
    public var critical: [RefetchReport]
    /// Strategy 2's background refetches, running one after another; await it to see their
    /// outcomes (they are also logged when they fail). `nil` when there are none.
    public var background: Task<[RefetchReport], Never>?
}

/// The outcome of one refetched query.
public struct RefetchReport: Sendable, Hashable {
    /// The query's operation name.
    public var query: String
    /// The variables it was refetched with.
    public var variables: [String: JSONValue]
    /// What the cache held when a cache-then-network (background) refetch started; `nil` for a
    /// network-only (critical) one, or when the cache held nothing.
    public var cached: GraphQLResult?
    /// Its result or error.
    public var outcome: Result<GraphQLResult, APIError>
}

extension GraphQLClient {
    /// Sends a mutation (once, unless it carries an idempotency key: never de-duplicated), normalizes its result
    /// into the store, so every query and watcher reading a changed field sees it, then runs the
    /// refetch rules the owning kit declared for the mutation's name.
    ///
    /// - Parameters:
    ///   - mutation: the mutation and its variables.
    ///   - optimisticResponse: data shaped like the mutation's result, written at once (watchers see
    ///     it) and rolled back exactly if the mutation fails: each field it set returns to its previous
    ///     value, unless something else wrote that field since.
    ///   - idempotencyKey: sent as `Idempotency-Key` (and in the request's `extensions`), so the server applies
    ///     the mutation once however often it is sent: a payment passes its intent's key (`IntentKeys`), and
    ///     the request is then retried like a query.
    ///   - owner: the user the mutation is for, when the caller learned it before (a payment's key is kept for
    ///     that user): it is sent with that user's token only, and fails with `APIError.sessionChanged`, nothing
    ///     sent, when another user signed in meanwhile.
    /// - Throws: `APIError`; the store is left as it was before the call.
    public func perform<M: GraphQLMutation>(
        _ mutation: M, optimisticResponse: [String: JSONValue]? = nil, idempotencyKey: String? = nil, owner: String? = nil
    )
        async throws(APIError) -> MutationResult
    {
        do {
            return try await performRecorded(
                mutation, optimisticResponse: optimisticResponse, idempotencyKey: idempotencyKey, owner: owner)
        } catch {
            recordError(error, operation: (try? mutation.operation())?.name)
            throw error
        }
    }

    private func performRecorded<M: GraphQLMutation>(
        _ mutation: M, optimisticResponse: [String: JSONValue]?, idempotencyKey: String?, owner: String?
    )
        async throws(APIError) -> MutationResult
    {
        let operation = try mutation.operation()
        let variables = mutation.variables
        let seen = generation
        let credentials = await configuration.tokenProvider?.currentCredentials()
        if let owner, credentials?.userId != owner { throw .sessionChanged }
        // Every write below (optimistic, result, roll-back) happens only if no clear came since the credentials were
        // read: a mutation still in flight at logout writes nothing of its user afterwards.
        let generation = adopt(credentials?.userId, since: seen) ?? seen
        let optimistic = optimisticResponse.flatMap {
            applyOptimistic($0, operation, variables: variables, ifGeneration: generation)
        }
        return try await perform(
            operation, variables: variables, credentials: credentials, optimistic: optimistic,
            generation: generation, idempotencyKey: idempotencyKey, queued: false)
    }

    /// Sends a mutation whose optimistic write (if any) is already applied, writes its result and
    /// runs its refetch rules; on failure, rolls the optimistic write back, except for a transport
    /// failure of a `queued` mutation, which will be sent again.
    func perform(
        _ operation: GraphQLOperation, variables: [String: JSONValue], credentials: Credentials?,
        optimistic: OptimisticWrite?, generation: Int, idempotencyKey: String?, queued: Bool
    )
        async throws(APIError) -> MutationResult
    {
        let data: [String: JSONValue]
        do {
            data = try await send(operation, variables: variables, credentials: credentials, idempotencyKey: idempotencyKey)
        } catch {
            let willRetry = queued && error.isRetryable
            if let optimistic, !willRetry { rollBack(optimistic, keeping: [:], ifGeneration: generation) }
            environment.logger.info(
                willRetry ? "Queued mutation failed; it will be sent again" : "Mutation failed; the cache is unchanged",
                metadata: ["operation": "\(operation.name ?? "mutation")", "error": "\(error)"])
            // Only when no connection was made: after a timeout or a dropped connection the server may have
            // applied it, and "nothing was applied" would be a lie.
            if error.isOffline, let name = operation.name,
                configuration.container?.mutationPolicy(forMutation: name) == .requiresConnection
            {
                throw .requiresConnection(operation: name)
            }
            throw error
        }
        let written = records(of: data, operation, variables: variables)
        write(data, operation, variables: variables, ifGeneration: generation)
        if let optimistic { rollBack(optimistic, keeping: written, ifGeneration: generation) }
        guard state.withLock({ $0.generation }) == generation else {
            environment.logger.info(
                "Mutation finished after a clear; its result was not written",
                metadata: ["operation": "\(operation.name ?? "mutation")"])
            return MutationResult(data: data, critical: [], background: nil)
        }
        let rules = operation.name.map { configuration.container?.refetchRules(forMutation: $0) ?? [] } ?? []
        var critical: [RefetchReport] = []
        var background: [any GraphQLQuery] = []
        for rule in rules {
            switch rule.strategy {
            case .refetch(let targets):
                critical += await refetchInParallel(queries(for: targets, mutationVariables: variables))
            case .criticalAndBackground(let first, let later):
                critical += await refetchInParallel(queries(for: first, mutationVariables: variables))
                background += queries(for: later, mutationVariables: variables)
            }
        }
        let backgroundTask =
            background.isEmpty
            ? nil
            : Task {
                var reports: [RefetchReport] = []
                for query in background { reports.append(await self.refetch(query, cacheFirst: true)) }
                return reports
            }
        return MutationResult(data: data, critical: critical, background: backgroundTask)
    }

    /// The queries fetched or watched under these operation names since the last full clear.
    func activeQueries(named names: [String]) -> [any GraphQLQuery] {
        state.withLock { state in names.flatMap { state.active[$0].map { $0.values.map(\.query) } ?? [] } }
    }

    /// The remembered queries each target selects: bound ones only where their variables match the
    /// mutation's; a paginated list once per other variables, from its first page, its later pages
    /// forgotten and removed from the cache.
    func queries(for targets: [RefetchQuery], mutationVariables: [String: JSONValue]) -> [any GraphQLQuery] {
        var selected: [any GraphQLQuery] = []
        for target in targets {
            let matching = activeQueries(named: [target.name]).filter { query in
                target.binding.allSatisfy { queryVariable, mutationVariable in
                    query.variables[queryVariable] == mutationVariables[mutationVariable]
                }
            }
            guard let cursor = target.cursor else {
                selected += matching
                continue
            }
            var firstPages: [[String: JSONValue]: any GraphQLQuery] = [:]
            for query in matching {
                var firstPage = query.variables
                firstPage[cursor] = .null
                if query.variables[cursor] ?? .null == .null {
                    firstPages[firstPage] = query
                } else {
                    forgetLaterPage(query, cursor: cursor)
                    if firstPages[firstPage] == nil { firstPages[firstPage] = query.restarted(withNull: cursor) }
                }
            }
            selected += firstPages.values
        }
        return selected
    }

    /// A later page of a list whose first page is refetched: its cursor may no longer hold, so the
    /// fields it holds under that cursor leave the cache (a walk from the cache then fetches it
    /// again) and it is no longer remembered for refetches.
    private func forgetLaterPage(_ query: any GraphQLQuery, cursor: String) {
        guard let operation = try? query.operation(), let name = operation.name else { return }
        let variables = query.variables
        let changed = state.withLock { state -> Set<FieldPath> in
            state.active[name]?[variables] = nil
            return (try? cache.removePageFields(of: operation, variables: variables, cursor: cursor)) ?? []
        }
        notifyWatchers(changed)
    }

    private func refetchInParallel(_ queries: [any GraphQLQuery]) async -> [RefetchReport] {
        await withTaskGroup(of: (Int, RefetchReport).self) { group in
            for (index, query) in queries.enumerated() {
                group.addTask { (index, await self.refetch(query, cacheFirst: false)) }
            }
            var reports: [(Int, RefetchReport)] = []
            for await report in group { reports.append(report) }
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Refetches a query from the network, writing the answer; failures are logged and reported.
    /// `cacheFirst` (cache-then-network) also reports what the cache held before the fetch.
    private func refetch(_ query: any GraphQLQuery, cacheFirst: Bool) async -> RefetchReport {
        func run<Q: GraphQLQuery>(_ query: Q) async -> RefetchReport {
            var cached: GraphQLResult?
            if cacheFirst, let operation = try? query.operation() {
                switch readFromCache(query, operation, timeout: nil) {
                case .fresh(let result), .stale(let result): cached = result
                case .miss: cached = nil
                }
            }
            let outcome = await catching { () async throws(APIError) in try await fetch(query, policy: .fetchIgnoringCacheData) }
            let name = (try? query.operation().name) ?? String(describing: Q.self)
            if case .failure(let error) = outcome {
                environment.logger.warning("Refetch after a mutation failed", metadata: ["query": "\(name)", "error": "\(error)"])
            }
            return RefetchReport(query: name, variables: query.variables, cached: cached, outcome: outcome)
        }
        return await run(query)
    }

    // MARK: Optimistic updates

    /// What an optimistic write replaced, field by field.
    struct OptimisticWrite: Sendable {
        struct Field: Sendable {
            var key: String
            var field: String
            var previous: RecordValue?
            var previousWrittenAt: Date?
            var optimistic: RecordValue
        }
        var fields: [Field]
    }

    /// The records a response normalizes to, as `[key: fields]`.
    private func records(
        of data: [String: JSONValue], _ operation: GraphQLOperation,
        variables: [String: JSONValue]
    ) -> [String: Set<String>] {
        cache.normalize(data, for: operation, variables: variables).mapValues { Set($0.keys) }
    }

    func applyOptimistic(
        _ data: [String: JSONValue], _ operation: GraphQLOperation,
        variables: [String: JSONValue], ifGeneration generation: Int
    ) -> OptimisticWrite? {
        let changed = state.withLock { state -> (OptimisticWrite, Set<FieldPath>)? in
            guard state.generation == generation else { return nil }
            let records = cache.normalize(data, for: operation, variables: variables)
            var fields: [OptimisticWrite.Field] = []
            for (key, record) in records {
                let existing = try? cache.store.record(forKey: key)
                record.forEachEntry { field, value, _ in
                    let previous = existing?.entry(field)
                    fields.append(
                        .init(
                            key: key, field: field, previous: previous?.value,
                            previousWrittenAt: previous?.writtenAt, optimistic: value))
                }
            }
            let changed = (try? cache.store.merge(records)) ?? []
            return (OptimisticWrite(fields: fields), changed)
        }
        guard let changed else { return nil }
        notifyWatchers(changed.1)
        return changed.0
    }

    /// Restores each optimistic field that still holds its optimistic value and that the real
    /// result (`keeping`) did not write; nothing when a clear came since `generation`.
    func rollBack(_ write: OptimisticWrite, keeping: [String: Set<String>], ifGeneration generation: Int) {
        let changed = state.withLock { state -> Set<FieldPath> in
            // After a clear the store holds none of it: restoring would write the old values back.
            guard state.generation == generation else { return [] }
            var restore: [String: NormalizedRecord] = [:]
            var remove: [String: Set<String>] = [:]
            for field in write.fields where keeping[field.key]?.contains(field.field) != true {
                guard let current = try? cache.store.record(forKey: field.key),
                    current.entry(field.field)?.value == field.optimistic
                else { continue }
                if let previous = field.previous {
                    restore[field.key, default: NormalizedRecord(accountId: current.accountId)]
                        .set(field.field, previous, writtenAt: field.previousWrittenAt ?? .distantPast)
                } else {
                    remove[field.key, default: []].insert(field.field)
                }
            }
            let restored = (try? cache.store.merge(restore)) ?? []
            let removed = (try? cache.store.removeFields(remove)) ?? []
            return restored.union(removed)
        }
        notifyWatchers(changed)
    }
}
