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

    /// The current time for an expiry check on a hot path (a memory-cache hit): it may lag ``now()`` by a
    /// few milliseconds where a cheaper clock exists. By default, ``now()``.
    func coarseNow() -> Date

    /// Waits until the clock reads `date` or later (a sync's deadline). By default the task sleeps for the
    /// interval between ``now()`` and `date`; a test clock returns when the test moves it past `date`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until date: Date) async throws
}

extension CacheClock {
    /// ``now()``.
    public func coarseNow() -> Date { now() }

    /// Sleeps for the interval from ``now()`` to `date` (at once when it is past).
    public func sleep(until date: Date) async throws {
        let interval = date.timeIntervalSince(now())
        if interval > 0 { try await Task.sleep(nanoseconds: UInt64(min(interval, 1e9) * 1_000_000_000)) }
        try Task.checkCancellation()
    }
}

/// The real wall clock.
public struct SystemClock: CacheClock {
    /// Creates the wall clock.
    public init() {}

    /// The current time, `Date()`.
    @inlinable
    public func now() -> Date { Date() }

    /// On Linux, the kernel's coarse real-time clock (`CLOCK_REALTIME_COARSE`: updated every tick, a few
    /// milliseconds at most behind, and about a quarter of the cost of a precise reading); elsewhere `Date()`.
    /// An entry may so be served up to one tick after its expiry, never a tick before it.
    @inlinable
    public func coarseNow() -> Date {
        #if os(Linux)
            var time = timespec()
            clock_gettime(CLOCK_REALTIME_COARSE, &time)
            return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        #else
            return Date()
        #endif
    }
}
