import APICore
import APICoreOffline
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import ReferenceBackend
import Testing

/// Kill -9 at any moment: a child process (this test binary, filtered to ``childEnqueuesAndReplays()``)
/// enqueues favorites changes and replays them against the reference backend, writing each
/// idempotency key to a log once its enqueue returned; the parent kills it with SIGKILL at a random
/// moment, then a new queue over the same folder replays what is left.
@Suite(.timeLimit(.minutes(10))) struct MutationQueueCrashTests {
    static let trials = 50
    static let variable = "MIB_QUEUE_CHILD"

    @Test func noConfirmedEnqueueIsLostAndNoChangeIsAppliedTwice() async throws {
        try await withBackend(10) { fixture in
            let alice = try await fixture.credentials()
            var confirmed: [String] = []
            var killedWithPending = 0
            for trial in 0..<Self.trials {
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let log = directory.url.appendingPathComponent("confirmed.txt")
                let settings = [directory.url.path, fixture.backend.baseURL.absoluteString, alice.accessToken, alice.userId]
                let child = try CrashChild.start(
                    test: "childEnqueuesAndReplays", environment: [Self.variable: settings.joined(separator: "\n")])
                // Kill after a random number of confirmed enqueues (0 to 30), then a random few milliseconds.
                let target = trial == 0 ? 0 : Int.random(in: 0...30)
                try await waitUntil("the child confirmed \(target) enqueues", timeout: .seconds(120)) {
                    Self.keys(in: log).count >= target || !child.process.isRunning
                }
                try await child.kill(after: .milliseconds(Int.random(in: 0...15)))
                confirmed += Self.keys(in: log)

                let relaunched = MutationQueueTests.App(baseURL: fixture.backend.baseURL, directory: directory.url, credentials: alice)
                if await !relaunched.queue.pending().isEmpty { killedWithPending += 1 }
                let report = await relaunched.queue.replay()
                #expect(report.remaining == 0 && report.refused.isEmpty, "trial \(trial): \(report)")
            }
            let applied = try fixture.backend.catalog.favoriteChanges(userId: alice.userId).compactMap(\.idempotencyKey)
            let lost = Set(confirmed).subtracting(applied)
            let twice = applied.count - Set(applied).count
            print(
                "MutationQueue crash trials: \(Self.trials) kills (\(killedWithPending) with mutations pending), "
                    + "\(confirmed.count) confirmed enqueues, \(applied.count) changes applied, lost \(lost.count), applied twice \(twice)")
            #expect(confirmed.count > Self.trials, "the trials enqueued something")
            #expect(lost.isEmpty, "confirmed enqueues lost: \(lost.count)")
            #expect(twice == 0, "changes the server applied twice: \(twice)")
        }
    }

    /// Only in the child process: enqueues and replays until killed (at most 60 s).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[variable] != nil, "runs only as the crash test's child"))
    func childEnqueuesAndReplays() async throws {
        guard let settings = ProcessInfo.processInfo.environment[Self.variable]?.split(separator: "\n").map(String.init),
            settings.count == 4, let baseURL = URL(string: settings[1])
        else { return }
        let directory = URL(fileURLWithPath: settings[0])
        let app = MutationQueueTests.App(
            baseURL: baseURL, directory: directory,
            credentials: Credentials(accessToken: settings[2], userId: settings[3]))
        await app.queue.start()
        let log = directory.appendingPathComponent("confirmed.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let slugs = ["funnel-1", "funnel-2", "funnel-3"]
        let deadline = Date().addingTimeInterval(60)
        var index = 0
        while Date() < deadline, index < 400 {
            let mutation = try await app.favorite(slugs[index % slugs.count], index % 2 == 0)
            try handle.write(contentsOf: Data((mutation.idempotencyKey + "\n").utf8))
            try handle.synchronize()
            index += 1
        }
        while Date() < deadline, await !app.queue.pending().isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func keys(in log: URL) -> [String] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        // A line is confirmed only once its newline is written.
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init).filter { !$0.isEmpty }
    }
}
