/// The app's cache budget: one total over every registered participant's stores, memory and disk
/// together, with optional caps for single participants inside it. ``UnifiedCacheManager`` enforces
/// it with ``UnifiedCacheManager/enforceBudget()``.
///
/// ```swift
/// unified.budget = CacheBudget(totalBytes: 50 * 1024 * 1024, participantCaps: ["catalog": 10 * 1024 * 1024])
/// await unified.enforceBudget()   // at launch, on entering the background, on a memory warning
/// ```
public struct CacheBudget: Sendable, Hashable, Codable {
    /// The most bytes all participants together may hold. 50 MB by default.
    public var totalBytes: Int
    /// Caps for single participants, by ``CacheClearingParticipant/participantName``, within the total.
    public var participantCaps: [String: Int]

    /// Creates a budget.
    public init(totalBytes: Int = 50 * 1024 * 1024, participantCaps: [String: Int] = [:]) {
        self.totalBytes = totalBytes
        self.participantCaps = participantCaps
    }

    /// What each participant may keep, given what each holds now: its holding within its cap, then,
    /// when the sum is still over the total, every allowance scaled down by the same factor, so each
    /// keeps the same fraction of what it had (the most recently used part of it).
    public func allowances(for usage: [(participant: String, bytes: Int)]) -> [String: Int] {
        var allowances: [String: Int] = [:]
        for (participant, bytes) in usage {
            allowances[participant, default: 0] += bytes
        }
        for (participant, cap) in participantCaps where (allowances[participant] ?? 0) > cap {
            allowances[participant] = max(0, cap)
        }
        let sum = allowances.values.reduce(0, +)
        guard sum > totalBytes else { return allowances }
        let factor = Double(max(0, totalBytes)) / Double(sum)
        return allowances.mapValues { Int((Double($0) * factor).rounded(.down)) }
    }
}

/// What ``UnifiedCacheManager/enforceBudget()`` found and did, participant by participant.
public struct BudgetReport: Sendable, Hashable, Codable {
    /// One participant's holding before and after.
    public struct Share: Sendable, Hashable, Codable {
        /// The participant.
        public var participant: String
        /// Bytes held before enforcement.
        public var bytesBefore: Int
        /// What it was allowed to keep.
        public var allowance: Int
        /// Bytes held afterwards.
        public var bytesAfter: Int
    }

    /// The budget enforced.
    public var budget: CacheBudget
    /// Every participant, in registration order.
    public var shares: [Share]
    /// Participants whose trim failed, with the error.
    public var failed: [ClearingReport.Failure]

    /// Bytes held by all participants afterwards.
    public var totalAfter: Int { shares.reduce(0) { $0 + $1.bytesAfter } }
    /// Whether everyone is within the budget now.
    public var isWithinBudget: Bool { totalAfter <= budget.totalBytes }
}
