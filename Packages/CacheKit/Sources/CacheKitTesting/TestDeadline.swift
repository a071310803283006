/// Deadlines for tests that talk to a server on 127.0.0.1: guards against a hang, never figures a test
/// checks.
///
/// They are long because the whole suite runs at once, and under ThreadSanitizer on two cores a local
/// request has waited over ten seconds for a thread. A test of a timeout sets its own, short one.
public enum TestDeadline {
    /// A request's timeout against a local server (60 s).
    public static let request: Duration = .seconds(60)
    /// How long ``waitUntil(_:timeout:_:)`` waits for its condition (100 s). Under ThreadSanitizer on two
    /// cores a task has waited over 30 s for a thread while the rest of the suite ran.
    public static let wait: Duration = .seconds(100)
}
