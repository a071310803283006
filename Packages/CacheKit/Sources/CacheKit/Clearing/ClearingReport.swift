/// What a ``UnifiedCacheManager`` operation did: which participants succeeded and which failed, in
/// registration order.
public struct ClearingReport: Sendable, Hashable {
    /// One participant's failure.
    public struct Failure: Sendable, Hashable, Codable {
        /// The participant's name.
        public var participant: String
        /// The error, described.
        public var error: String

        /// Creates a failure.
        public init(participant: String, error: String) {
            self.participant = participant
            self.error = error
        }
    }

    /// The operation, such as `clearAllCaches`.
    public var operation: String
    /// The participants that completed it.
    public var succeeded: [String]
    /// The participants that threw, with their errors.
    public var failed: [Failure]

    /// Creates a report (participants beyond the caches, such as a session's token, add themselves).
    public init(operation: String, succeeded: [String] = [], failed: [Failure] = []) {
        self.operation = operation
        self.succeeded = succeeded
        self.failed = failed
    }

    /// Whether every participant completed.
    public var isComplete: Bool { failed.isEmpty }
}
