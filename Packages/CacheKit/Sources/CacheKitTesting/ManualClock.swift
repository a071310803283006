import CacheKit
import Foundation

/// A clock that moves only when a test moves it, so expiry is tested without sleeping.
public final class ManualClock: CacheClock {
    private let current: Locked<Date>

    /// Creates a clock reading `now` (by default 2026-01-15 12:00:00 UTC).
    public init(now: Date = Date(timeIntervalSince1970: 1_768_478_400)) {
        current = Locked(now)
    }

    /// The time the test set.
    public func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(to date: Date) {
        current.withLock { $0 = date }
    }
}
