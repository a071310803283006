import CacheKit

/// A clearing participant that records every call it receives and can be told to fail, for tests of
/// `UnifiedCacheManager` and of flows that must clear caches (logout, account switch).
public final class RecordingParticipant: CacheClearingParticipant {
    /// One call the participant received.
    public enum Call: Sendable, Hashable {
        case clearAll
        case clearAccount(String)
        case clearKey(String)
        case expireAll
        case applyTimeouts
    }

    /// The error a failing participant throws.
    public struct InjectedFailure: Error, CustomStringConvertible {
        /// Names the participant.
        public var description: String
    }

    /// The participant's name.
    public let participantName: String
    /// Its family.
    public let category: CacheCategory
    private let failing: Locked<Bool>
    private let recorded = Locked<[Call]>([])

    /// Creates a participant.
    ///
    /// - Parameters:
    ///   - name: its name in reports.
    ///   - category: its family.
    ///   - failing: when true, every call is recorded and then throws ``InjectedFailure``.
    public init(name: String, category: CacheCategory = .data, failing: Bool = false) {
        participantName = name
        self.category = category
        self.failing = Locked(failing)
    }

    /// Makes every later call fail (or succeed again): a store whose disk breaks, then recovers.
    public func setFailing(_ failing: Bool) {
        self.failing.withLock { $0 = failing }
    }

    /// The calls received, in order.
    public var calls: [Call] {
        recorded.withLock { $0 }
    }

    private func record(_ call: Call) throws {
        recorded.withLock { $0.append(call) }
        if failing.withLock({ $0 }) { throw InjectedFailure(description: "\(participantName) failed on purpose") }
    }

    /// Records ``Call/clearAll``.
    public func clearAll() async throws { try record(.clearAll) }
    /// Records ``Call/clearAccount(_:)``.
    public func clear(forAccountId accountId: String) async throws { try record(.clearAccount(accountId)) }
    /// Records ``Call/clearKey(_:)``.
    public func clear(forKey key: String) async throws { try record(.clearKey(key)) }
    /// Records ``Call/expireAll``.
    public func expireAll() async throws { try record(.expireAll) }
    /// Records ``Call/applyTimeouts``.
    public func applyTimeouts() async throws { try record(.applyTimeouts) }
}
