/// What a ``UnifiedCacheManager`` operation did: which participants succeeded and which failed, in
/// registration order.
public struct ClearingReport: Sendable, Hashable {
    /// One participant's failure.
    public struct Failure: Sendable, Hashable {
        /// The participant's name.
        public var participant: String
        /// The error, described.
        public var error: String
    }

    /// The operation, such as `clearAllCaches`.
    public var operation: String
    /// The participants that completed it.
    public var succeeded: [String]
    /// The participants that threw, with their errors.
    public var failed: [Failure]

    /// Whether every participant completed.
    public var isComplete: Bool { failed.isEmpty }
}
