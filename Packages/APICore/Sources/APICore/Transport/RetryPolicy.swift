/// How failed idempotent requests are retried: on transport errors (timeouts included) and on 429, 500,
/// 502, 503 and 504, up to ``maxAttempts`` in all, waiting an exponentially growing delay with jitter
/// between attempts, or what a 429's or 503's `Retry-After` asks when it asks no more than
/// ``maxRetryAfter``. A POST or PATCH is retried only when it carries an idempotency key.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means never retry.
    public var maxAttempts: Int
    /// The delay before the first retry, before jitter.
    public var baseDelay: Duration
    /// The largest delay, before jitter.
    public var maxDelay: Duration
    /// The longest `Retry-After` a caller waits: a server asking for more gets no retry, and the caller
    /// receives its 429 or 503 at once.
    public var maxRetryAfter: Duration

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
        maxRetryAfter: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// Never retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The delay before retry number `retry` (1 for the first): half of `min(maxDelay, baseDelay·2^(retry-1))`
    /// plus a random share of the other half ("equal jitter"), so clients that failed together do not
    /// retry together. `unit` is a random number in `0...1`.
    public func delay(beforeRetry retry: Int, unit: Double) -> Duration {
        let exponential = baseDelay * (1 << min(max(retry - 1, 0), 30))
        let capped = min(exponential, maxDelay)
        return capped / 2 + (capped / 2) * min(max(unit, 0), 1)
    }

    static let retriableStatuses: Set<Int> = [429, 500, 502, 503, 504]
}

/// Waits between retries. Tests inject one that records the delays and returns at once, so backoff
/// is checked without sleeping.
public protocol Sleeper: Sendable {
    /// Suspends for `duration`, or throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// Sleeps with `Task.sleep`.
public struct TaskSleeper: Sleeper {
    /// Creates a sleeper.
    public init() {}

    /// Sleeps for `duration`.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
