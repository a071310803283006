import APICore
import CacheKit
import Foundation

/// `mib e2e`: the end-to-end scenarios, each against a fresh ``DemoComposition`` (its own caches) and the
/// same backend, one after another. Each kit adds its scenarios to ``scenarios``.
public enum EndToEnd {
    /// One scenario: what it shows and how.
    public struct Scenario: Sendable {
        /// The kit (or core part) it checks.
        public var kit: String
        /// What it shows, as a sentence.
        public var name: String
        /// Runs it; returns what it saw, or throws why it failed.
        var run: @Sendable (DemoComposition) async throws -> String
    }

    /// One scenario's outcome.
    public struct Result: Codable, Sendable, Hashable {
        /// The kit.
        public var kit: String
        /// The scenario.
        public var name: String
        /// Whether it passed.
        public var passed: Bool
        /// What it saw, or why it failed.
        public var detail: String
        /// How long it took, in milliseconds.
        public var milliseconds: Double
    }

    /// Every outcome.
    public struct Report: Codable, Sendable, Hashable {
        /// The backend checked.
        public var server: String
        /// Outcomes in order.
        public var results: [Result]
        /// Whether every scenario passed.
        public var passed: Bool { results.allSatisfy(\.passed) }
    }

    /// Runs every scenario against `server`, or against a reference backend started for the run
    /// (its data in `directory`) when `server` is `nil`.
    /// - Parameters:
    ///   - transport: makes what each scenario's app sends through (``ToolTransport`` by default; a
    ///     `PinnedTransport` for `mib e2e --pin`).
    ///   - progress: sees each outcome as it is known.
    /// - Throws: only when the backend cannot be started; a failing scenario is a failed ``Result``.
    public static func run(
        server: URL?, transport: @escaping TransportFactory = ToolTransport.factory, in directory: URL, contactCount: Int = 10_000,
        progress: @escaping @Sendable (Result) -> Void = { _ in }
    ) async throws -> Report {
        try await DemoComposition.withBackend(server, in: directory, logger: DemoComposition.quietLogger, contactCount: contactCount) {
            baseURL in
            await run(against: baseURL, transport: transport, in: directory, progress: progress)
        }
    }

    private static func run(
        against baseURL: URL, transport: @escaping TransportFactory, in directory: URL, progress: @Sendable (Result) -> Void
    ) async -> Report {
        var results: [Result] = []
        for (index, scenario) in scenarios.enumerated() {
            let clock = ContinuousClock.now
            var passed = true
            var detail: String
            do {
                let app = try DemoComposition(
                    baseURL: baseURL, cachesDirectory: directory.appendingPathComponent("caches-\(index)"), transport: transport,
                    logger: DemoComposition.quietLogger)
                detail = try await withDeadline(scenarioLimit, "the scenario \"\(scenario.name)\"") {
                    try await scenario.run(app)
                }
            } catch {
                passed = false
                detail = "\(error)"
            }
            let result = Result(
                kit: scenario.kit, name: scenario.name, passed: passed, detail: detail,
                milliseconds: (ContinuousClock.now - clock).milliseconds)
            progress(result)
            results.append(result)
        }
        return Report(server: baseURL.absoluteString, results: results)
    }

    /// How long one scenario may take before it fails as hung: alone they take well under a second each, but inside the
    /// suite, beside two busy processes, one took 76 s.
    static let scenarioLimit = Duration.seconds(180)

    /// The scenarios, in the order they run.
    public static let scenarios: [Scenario] =
        catalogScenarios + sessionScenarios + sessionLaunchScenarios + accountsScenarios
        + offlineScenarios + chatScenarios + contactsScenarios
        + logoutScenarios
}

/// Why a scenario failed.
struct ScenarioFailure: Error, CustomStringConvertible {
    var description: String
}

/// Fails the scenario with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScenarioFailure(description: message()) }
}

/// `value`, or the scenario fails with `message` when it is `nil`.
func unwrap<T>(_ value: T?, _ message: @autoclosure () -> String) throws -> T {
    guard let value else { throw ScenarioFailure(description: message()) }
    return value
}

extension Duration {
    /// In milliseconds, to two decimals.
    var milliseconds: Double {
        let value = Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
        return (value * 100).rounded() / 100
    }
}
