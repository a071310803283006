import Foundation

/// How a sync run ended.
public enum SyncOutcome: String, Sendable, Hashable, Codable {
    /// It reached its last page.
    case completed
    /// Its time budget ran out; what it stored is kept and the next run resumes after it.
    case budgetExhausted
    /// Its task was cancelled (the system's background time expired); the next run resumes.
    case cancelled
    /// A fetch or a store failed (``SyncReport/error``); the next run resumes after the last page stored.
    case failed
    /// The user it ran for signed out, another user signed in, or the user's data was cleared while it
    /// went: it stopped, stored nothing more, and sent nothing more with any token.
    case sessionEnded
}

/// What one run of one sync did.
public struct SyncReport: Sendable, Encodable {
    /// The source's name.
    public var name: String
    /// Full or incremental; `nil` when the run did not start (nobody signed in, the budget already spent).
    public var mode: SyncMode?
    /// Whether it continued a run that had stopped part way.
    public var resumed = false
    /// Whether the server refused the changes token (``SyncError/changesTokenRejected``) and the run
    /// became one full sync instead.
    public var fellBackToFullSync = false
    /// Pages stored.
    public var pages = 0
    /// Records stored, by kind (``SyncPage/counts`` summed).
    public var counts: [String: Int] = [:]
    /// Requests made for the pages stored.
    public var requests = 0
    /// How it ended.
    public var outcome: SyncOutcome = .completed
    /// Seconds from start to end, by the runner's clock.
    public var duration: TimeInterval = 0
    /// Why it failed, when it did.
    public var error: (any Error)?

    /// Creates an empty report for `name`.
    public init(name: String) {
        self.name = name
    }

    /// Whether it reached its last page.
    public var isComplete: Bool { outcome == .completed }

    /// Records stored, all kinds together.
    public var items: Int { counts.values.reduce(0, +) }

    private enum CodingKeys: String, CodingKey {
        case name, mode, resumed, fellBackToFullSync, pages, counts, requests, outcome, duration, error
    }

    /// Encodes every field; the error as its description (the errors of the kits describe themselves
    /// without tokens or personal data).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(mode, forKey: .mode)
        try container.encode(resumed, forKey: .resumed)
        try container.encode(fellBackToFullSync, forKey: .fellBackToFullSync)
        try container.encode(pages, forKey: .pages)
        try container.encode(counts, forKey: .counts)
        try container.encode(requests, forKey: .requests)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(duration, forKey: .duration)
        try container.encodeIfPresent(error.map { String(describing: $0) }, forKey: .error)
    }
}
