import Foundation

/// A wait that ran out of time, naming what it waited for.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the wait was for ("50 callers waiting on the shared request").
    public var condition: String
    /// How long it waited.
    public var timeout: Duration

    /// "timed out after 100.0 seconds waiting for …".
    public var description: String { "timed out after \(timeout) waiting for \(condition)" }
}

/// Polls `condition` (yielding, then sleeping a millisecond between polls) until it holds, and
/// throws ``WaitTimedOut`` naming `condition` when it does not hold within `timeout`. The deadline is
/// a guard against a hang, never part of what a test checks: use it instead of `while !x {}` loops.
///
/// ```swift
/// try await waitUntil("the request reached the server") { server.count("/never") == 1 }
/// ```
public func waitUntil(
    _ description: String, timeout: Duration = TestDeadline.wait,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    var polls = 0
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(condition: description, timeout: timeout) }
        polls += 1
        if polls < 100 {
            await Task.yield()
        } else {
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
