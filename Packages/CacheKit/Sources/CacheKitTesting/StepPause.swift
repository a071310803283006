import CacheKit
import Dispatch
import Foundation

/// Holds one step of a synchronous path (a store's write, a disk hit's copy) at the moment a test chose, while the test
/// runs something beside it (a clearing), for race tests. The first call to ``pauseIfArmed()`` after ``arm()`` blocks
/// its thread until ``resume()``, or two seconds: a clearing that rightly waits for the held step cannot resume it, and
/// the step then goes on by itself (a deadline against a hang, not a timing the test relies on).
///
/// ```swift
/// let pause = StepPause()
/// let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images")
/// let cache = ImageCache(configuration: .init(directory: folder), clock: PausingClock(pause: pause))
/// // Armed at the step to hold; once `pause.isPaused`, the clearing runs beside it.
/// try cache.clearAll()
/// pause.resume()
/// ```
public final class StepPause: Sendable {
    private let armed = Locked(false)
    private let paused = Locked(false)
    private let resumed = DispatchSemaphore(value: 0)

    /// Creates a pause, not armed.
    public init() {}

    /// Makes the next ``pauseIfArmed()`` block.
    public func arm() { armed.withLock { $0 = true } }

    /// Whether a step is held, or was.
    public var isPaused: Bool { paused.withLock { $0 } }

    /// Lets the held step go on.
    public func resume() { resumed.signal() }

    /// Blocks, once armed, until ``resume()`` or two seconds; returns at once otherwise.
    public func pauseIfArmed() {
        guard
            armed.withLock({ armed in
                defer { armed = false }
                return armed
            })
        else { return }
        paused.withLock { $0 = true }
        _ = resumed.wait(timeout: .now() + 2)
    }
}

/// A clock that holds the first reading after its pause is armed (``StepPause``): a path that reads the time just
/// before a write is held there.
public struct PausingClock: CacheClock {
    /// The pause the clock holds at.
    public let pause: StepPause

    /// Creates a clock holding at `pause`.
    public init(pause: StepPause) { self.pause = pause }

    /// The time, after the pause when it is armed.
    public func now() -> Date {
        pause.pauseIfArmed()
        return Date()
    }
}
