/// Work that did not finish in time, naming what it was.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What was being waited for.
    public var what: String
    /// The limit it ran over.
    public var limit: Duration

    /// "… did not finish within 60 seconds".
    public var description: String { "\(what) did not finish within \(limit)" }
}

/// Runs `operation`; cancels it and throws ``DeadlineExceeded`` when it runs longer than `limit`.
/// Every wait in the app's scenarios goes through this, so a regression fails with a reason instead
/// of hanging (the operation must honour cancellation, as URLSession and async streams do).
func withDeadline<T: Sendable>(
    _ limit: Duration, _ what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw DeadlineExceeded(what: what, limit: limit)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw DeadlineExceeded(what: what, limit: limit) }
        return first
    }
}
