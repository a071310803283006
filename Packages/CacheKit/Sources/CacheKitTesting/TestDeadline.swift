/// Deadlines for tests that talk to a server on 127.0.0.1: guards against a hang, never figures a test
/// checks.
///
/// They are long because the whole suite runs at once, and under ThreadSanitizer on two cores a local
/// request has waited over ten seconds for a thread; with busy processes beside the run (CI runs it beside two,
/// and a developer's machine builds beside it), waits of seconds took over 100 s. A test of a timeout sets its
/// own, short one. A hang still fails, at its suite's time limit at the latest, naming what it waited for.
public enum TestDeadline {
    /// A request's timeout against a local server (120 s).
    public static let request: Duration = .seconds(120)
    /// How long ``waitUntil(_:timeout:_:)`` waits for its condition (300 s).
    public static let wait: Duration = .seconds(300)
}
