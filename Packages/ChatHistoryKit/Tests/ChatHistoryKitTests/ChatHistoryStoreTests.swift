import CacheKit
import CacheKitTesting
import ChatHistoryKit
import ChatHistoryKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10))) struct ChatHistoryStoreTests {
    @Test func aVersion1FileOpensWithEveryThreadAndMessageAndTheNewColumns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = ChatHistoryStore(directory: directory.url)
        try ChatHistoryFixtures.writeVersion1(at: store.fileURL(for: "u1"))
        let threads = try store.threads(userId: "u1")
        #expect(threads.map(\.id) == ["t2", "t1"], "newest first")
        #expect(try store.threads(userId: "u1", area: .compatibility).map(\.id) == ["t2"])
        let messages = try store.messages(userId: "u1", threadId: "t1")
        #expect(messages.map(\.id) == ["m1", "m2"] && messages.allSatisfy { $0.state == .sent })
        #expect(try store.checkpoint(userId: "u1") == nil, "never synced: the first sync is a full one")
    }

    @Test func aVersion2FileKeepsItsPendingMessageAndContinuesItsSyncIncrementallyFromItsCursor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = ChatHistoryStore(directory: directory.url)
        try ChatHistoryFixtures.writeVersion2(at: store.fileURL(for: "u1"))
        #expect(try store.messages(userId: "u1", threadId: "t2").map(\.state) == [.sent, .pending])
        let checkpoint = try #require(try store.checkpoint(userId: "u1"))
        #expect(checkpoint.changesToken == "cursor-v2" && !checkpoint.isInProgress)
        let next = SyncCheckpoint.nextRequest(after: checkpoint, now: Date(), maximumOfflineDuration: 86_400)
        #expect(next == SyncPageRequest(mode: .incremental, pageCursor: nil, changesToken: "cursor-v2"))
    }

    @Test func clearingDeletesEveryFileAndUsersNeverShareOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = ChatHistoryStore(directory: directory.url.appendingPathComponent("chat-history"))
        try ChatHistoryFixtures.writeVersion1(at: store.fileURL(for: "u1"))
        #expect(try store.threads(userId: "u2").isEmpty, "another user's file is another file")
        #expect(store.fileURL(for: "u1") != store.fileURL(for: "u2"))
        #expect(!store.fileURL(for: "alice@example.com").lastPathComponent.contains("alice"))
        try await store.clearAll()
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
        #expect(try store.threads(userId: "u1").isEmpty, "after a clear the history is empty until the next sync")
    }
}
