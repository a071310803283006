import APICore
import APICoreOffline
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// A user's queue erased (their account deleted, or a logout that discards it) stays erased: a kit's follower that
/// finishes its pass after the erase (settling a refusal, reading the remaps) never creates the file again (REQ OFF-9).
@Suite(.timeLimit(.minutes(10))) struct QueueErasedStaysErasedTests {
    @Test func settlingAndReadingAfterTheEraseBringNoFileBack() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.credentials()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = MutationQueueTests.App(fixture.backend, directory: directory, credentials: alice)
            try await app.favorite("no-such-funnel")
            let failure = try #require(await app.queue.replay().refused.first)
            let folder = directory.url.appendingPathComponent("mutations")
            let queueFiles = { (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] }
            #expect(!queueFiles().isEmpty, "positive control: the refusal is kept in Alice's file")

            await app.queue.erase(userId: alice.userId)
            await app.queue.settle(failure, of: alice.userId)
            #expect(await app.queue.idRemaps(of: alice.userId).isEmpty)
            #expect(await app.queue.failures().isEmpty)
            #expect(await app.queue.pending().isEmpty)
            #expect(queueFiles().isEmpty, "the erased queue came back: \(queueFiles())")
        }
    }
}
