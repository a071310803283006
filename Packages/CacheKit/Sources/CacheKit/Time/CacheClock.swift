import Foundation

/// The source of "now" for everything in CacheKit that depends on time: freshness, expiry,
/// end-of-day rollover and LRU order.
///
/// Cache entries outlive the process, so the clock is wall-clock `Date`, not a monotonic instant.
/// Inject ``SystemClock`` in production and `ManualClock` (from `CacheKitTesting`) in tests, so expiry
/// is tested by advancing the clock instead of sleeping.
public protocol CacheClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The real wall clock.
public struct SystemClock: CacheClock {
    /// Creates the wall clock.
    public init() {}

    /// The current time, `Date()`.
    @inlinable
    public func now() -> Date { Date() }
}
