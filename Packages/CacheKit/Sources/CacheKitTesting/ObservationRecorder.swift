import CacheKit

/// Follows an observing read in a task of its own and keeps every value it yields, how it ended, and
/// waits (with a deadline that names what it waited for) until they show what a test expects.
///
/// ```swift
/// let recorder = ObservationRecorder(files.observe(lease: files.lease(for: "alice"), empty: 0) { db in try Item.fetchCount(db) })
/// try await recorder.wait("the first page's ten items") { $0.last == 10 }
/// try files.removeAll()
/// try await recorder.waitUntilFinished()
/// ```
public final class ObservationRecorder<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var finished = false
        var failure: (any Error)?
    }

    private let state = Locked(State())
    private let task: Task<Void, Never>

    /// Starts following `sequence`.
    public init(_ sequence: AsyncThrowingStream<Value, any Error>) {
        let state = self.state
        task = Task {
            do {
                for try await value in sequence { state.withLock { $0.values.append(value) } }
            } catch {
                state.withLock { $0.failure = error }
            }
            state.withLock { $0.finished = true }
        }
    }

    deinit { task.cancel() }

    /// Every value yielded so far, in order.
    public var values: [Value] { state.withLock { $0.values } }
    /// Whether the sequence has ended.
    public var isFinished: Bool { state.withLock { $0.finished } }
    /// The error it ended with, if any.
    public var failure: (any Error)? { state.withLock { $0.failure } }

    /// Waits until the values yielded so far satisfy `condition`.
    /// - Throws: ``WaitTimedOut`` naming `description` (and the values seen) when they do not in time.
    public func wait(_ description: String, timeout: Duration = TestDeadline.wait, _ condition: @escaping @Sendable ([Value]) -> Bool)
        async throws
    {
        do {
            try await waitUntil(description, timeout: timeout) { condition(values) }
        } catch let timedOut as WaitTimedOut {
            throw WaitTimedOut(condition: "\(timedOut.condition) (values seen: \(values))", timeout: timedOut.timeout)
        }
    }

    /// Waits until the sequence ends.
    public func waitUntilFinished(timeout: Duration = TestDeadline.wait) async throws {
        try await waitUntil("the observation to finish (values seen: \(values))", timeout: timeout) { isFinished }
    }

    /// Stops following (as a screen that goes away).
    public func cancel() {
        task.cancel()
    }
}
