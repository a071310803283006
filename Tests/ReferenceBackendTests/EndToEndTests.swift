import CacheKitTesting
import Foundation
import Hummingbird
import Logging
import MIBCore
import ReferenceBackend
import Testing

/// `mib e2e`'s scenarios run in the suite, against a fresh backend, and fail when the backend is gone.
@Suite(.timeLimit(.minutes(10))) struct EndToEndTests {
    @Test func everyScenarioPassesAgainstTheReferenceBackend() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = try await EndToEnd.run(server: nil, in: directory.url, contactCount: 120)
        #expect(report.results.count == EndToEnd.scenarios.count)
        for result in report.results {
            #expect(result.passed, "\(result.kit): \(result.name): \(result.detail)")
        }
        #expect(Set(report.results.map(\.kit)).isSuperset(of: ["catalog", "session", "accounts", "logout"]))
    }

    @Test func everyScenarioFailsWithAReasonWhenTheServerIsGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var logger = Logger(label: "gone")
        logger.logLevel = .critical
        let gone = try await LocalServer.start(responder: Router().buildResponder(), port: 0, logger: logger)
        await gone.stop()
        let report = try await EndToEnd.run(server: gone.baseURL, in: directory.url)
        #expect(!report.passed)
        #expect(report.results.allSatisfy { !$0.passed && !$0.detail.isEmpty })
    }
}
