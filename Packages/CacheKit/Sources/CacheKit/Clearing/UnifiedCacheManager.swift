import Foundation
import Logging

/// One place to clear, re-time, count and inspect every cache of the app: REST, GraphQL and each
/// kit's own.
///
/// Participants are registered (kits do it through the container), never hard-coded. Every operation
/// is a fan-out with one rule: **every participant is asked, concurrently, and one that throws never
/// stops the others.** The returned ``ClearingReport`` lists who completed and who failed, in
/// registration order; a failure is also logged. Use it for the clearing matrix of REQ ARC-5:
///
/// | when | call |
/// | --- | --- |
/// | logout, session expiry, account deletion | ``clearAllCaches()`` |
/// | account switch | ``clearCache(forAccountId:)`` |
/// | a corrupt entry (error recovery) | ``clearCache(forQuery:)`` |
/// | settings changed | ``apply(_:clearing:)`` or ``reloadSettings(from:clearing:)`` |
/// | launch, background, memory warning | ``enforceBudget()`` (the app-wide ``budget``) |
public final class UnifiedCacheManager: Sendable {
    private let participants = Locked<[any CacheClearingParticipant]>([])
    private let budgetState = Locked(CacheBudget())
    /// The timeout policy shared with every cache (settings, kits' defaults).
    public let timeouts: CacheTimeoutPolicy
    private let logger: Logger

    /// Creates a manager with no participants.
    ///
    /// - Parameters:
    ///   - timeouts: the policy shared with every cache, updated by settings reloads.
    ///   - logger: where failures are reported.
    public init(timeouts: CacheTimeoutPolicy, logger: Logger = Logger(label: "CacheKit.UnifiedCacheManager")) {
        self.timeouts = timeouts
        self.logger = logger
    }

    /// Adds a participant. Registering two with the same name is allowed but makes reports ambiguous.
    public func register(_ participant: any CacheClearingParticipant) {
        participants.withLock { $0.append(participant) }
    }

    /// Lets every participant go: its owner is done with it (a dropped composition, whose participants hold
    /// this manager back through their container). Nothing is cleared.
    public func unregisterAll() {
        participants.withLock { $0.removeAll() }
    }

    /// The registered participants' names, in registration order.
    public var participantNames: [String] {
        participants.withLock { $0.map(\.participantName) }
    }

    // MARK: Clearing

    /// Clears every cache, memory and disk: logout, session expiry, account deletion.
    @discardableResult
    public func clearAllCaches() async -> ClearingReport {
        await fanOut("clearAllCaches") { try await $0.clearAll() }
    }

    /// Clears what belongs to exactly this account in every cache (account `100` never touches `1002`).
    @discardableResult
    public func clearCache(forAccountId accountId: String) async -> ClearingReport {
        await fanOut("clearCache(forAccountId:)") { try await $0.clear(forAccountId: accountId) }
    }

    /// Removes one key (a query's or request's cache key) from every cache.
    @discardableResult
    public func clearCache(forQuery key: String) async -> ClearingReport {
        await fanOut("clearCache(forQuery:)") { try await $0.clear(forKey: key) }
    }

    /// Clears every cache of one participant (`catalog`, `graphql`, …), as a debug screen's clear button does.
    @discardableResult
    public func clearCache(participant name: String) async -> ClearingReport {
        await fanOut("clearCache(participant:)", named: name) { try await $0.clearAll() }
    }

    /// Clears the GraphQL caches only.
    @discardableResult
    public func clearGraphQLCache() async -> ClearingReport {
        await fanOut("clearGraphQLCache", only: .graphQL) { try await $0.clearAll() }
    }

    /// Clears the REST caches only.
    @discardableResult
    public func clearRESTCache() async -> ClearingReport {
        await fanOut("clearRESTCache", only: .rest) { try await $0.clearAll() }
    }

    /// Makes every entry in every cache stale, so each is loaded again on next use.
    @discardableResult
    public func clearTimestamps() async -> ClearingReport {
        await fanOut("clearTimestamps") { try await $0.expireAll() }
    }

    // MARK: Settings

    /// Puts new timeout settings in force: every cache re-stamps its entries' expiry dates, or, when
    /// `clearing` (default: the settings' `clearOnChange`) is true, every cache is cleared instead.
    @discardableResult
    public func apply(_ settings: TimeoutSettings, clearing: Bool? = nil) async -> ClearingReport {
        timeouts.update(settings)
        if clearing ?? settings.clearOnChange {
            return await clearAllCaches()
        }
        return await fanOut("applyTimeouts") { try await $0.applyTimeouts() }
    }

    /// Reads the settings file and applies it (see ``apply(_:clearing:)``). A file that does not
    /// parse leaves the settings in force unchanged.
    ///
    /// - Throws: ``TimeoutSettingsError`` naming the file and the bad key.
    @discardableResult
    public func reloadSettings(from url: URL, clearing: Bool? = nil) async throws(TimeoutSettingsError) -> ClearingReport {
        let settings = try TimeoutSettings.load(from: url)
        return await apply(settings, clearing: clearing)
    }

    // MARK: Budget

    /// The app-wide budget ``enforceBudget()`` holds every participant to: 50 MB in all by default.
    public var budget: CacheBudget {
        get { budgetState.withLock { $0 } }
        set { budgetState.withLock { $0 = newValue } }
    }

    /// Brings every participant within its cap and all of them together within ``budget``'s total:
    /// each is asked for its size (``statistics()``), given an allowance (``CacheBudget/allowances(for:)``)
    /// and, when over it, trimmed to it, least recently used entries first. Participants are trimmed
    /// concurrently; one that fails is reported and logged, and never stops the others. Call it at
    /// launch, when the app goes to the background and on a memory warning; `mib inspect` prints
    /// each participant's share.
    @discardableResult
    public func enforceBudget() async -> BudgetReport {
        let budget = self.budget
        let before = await sizes()
        let allowances = budget.allowances(for: before.map { ($0.name, $0.bytes) })
        let over = before.filter { $0.bytes > (allowances[$0.name] ?? 0) }.map(\.name)
        let report = await fanOut("enforceBudget") { participant in
            guard over.contains(participant.participantName) else { return }
            try await participant.trim(toBytes: allowances[participant.participantName] ?? 0)
        }
        let after = Dictionary(await sizes().map { ($0.name, $0.bytes) }, uniquingKeysWith: +)
        let shares = before.map { entry in
            BudgetReport.Share(
                participant: entry.name, bytesBefore: entry.bytes,
                allowance: allowances[entry.name] ?? 0, bytesAfter: after[entry.name] ?? 0)
        }
        return BudgetReport(budget: budget, shares: shares, failed: report.failed)
    }

    /// Each participant's bytes over all its stores, in registration order (names merged); only the
    /// participants the app-wide budget counts (``CacheClearingParticipant/isInAppBudget``).
    private func sizes() async -> [(name: String, bytes: Int)] {
        let outside = Set(participants.withLock { $0 }.filter { !$0.isInAppBudget }.map(\.participantName))
        let rows = await statistics().filter { !outside.contains($0.participant) }
        var order: [String] = []
        var bytes: [String: Int] = [:]
        for row in rows {
            if bytes[row.participant] == nil { order.append(row.participant) }
            bytes[row.participant, default: 0] += row.usage.bytes
        }
        return order.map { ($0, bytes[$0] ?? 0) }
    }

    // MARK: Inspection

    /// Counts and sizes of every store of every participant. A participant that fails is logged and skipped.
    public func statistics() async -> [CacheStoreStatistics] {
        await collect("statistics") { try await $0.statistics() }
    }

    /// Every cached entry, without values and with keys, users and accounts redacted, for debugging.
    /// A participant that fails is logged and skipped.
    public func exportCacheContents() async -> [CacheExportEntry] {
        await collect("exportCacheContents") { try await $0.exportEntries() }
    }

    private func collect<Row>(
        _ operation: String, _ body: (any CacheClearingParticipant) async throws -> [Row]
    ) async -> [Row] {
        var rows: [Row] = []
        for participant in participants.withLock({ $0 }) {
            do {
                rows += try await body(participant)
            } catch {
                logger.warning(
                    "Cache operation failed",
                    metadata: [
                        "operation": "\(operation)", "participant": "\(participant.participantName)", "error": "\(error)",
                    ])
            }
        }
        return rows
    }

    // MARK: Fan-out

    private func fanOut(
        _ operation: String, only category: CacheCategory? = nil, named name: String? = nil,
        _ body: @escaping @Sendable (any CacheClearingParticipant) async throws -> Void
    ) async -> ClearingReport {
        let selected = participants.withLock { $0 }.filter {
            (category == nil || $0.category == category) && (name == nil || $0.participantName == name)
        }
        let outcomes = await withTaskGroup(of: (Int, String?).self) { group in
            for (index, participant) in selected.enumerated() {
                group.addTask {
                    do {
                        try await body(participant)
                        return (index, nil)
                    } catch {
                        return (index, "\(error)")
                    }
                }
            }
            var outcomes = [String?](repeating: nil, count: selected.count)
            for await (index, error) in group { outcomes[index] = error }
            return outcomes
        }
        var report = ClearingReport(operation: operation, succeeded: [], failed: [])
        for (participant, error) in zip(selected, outcomes) {
            if let error {
                report.failed.append(.init(participant: participant.participantName, error: error))
                logger.error(
                    "Cache operation failed",
                    metadata: [
                        "operation": "\(operation)", "participant": "\(participant.participantName)", "error": "\(error)",
                    ])
            } else {
                report.succeeded.append(participant.participantName)
            }
        }
        return report
    }
}
