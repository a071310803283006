import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreOffline
@testable import APICoreREST

/// A queue whose file fails under it: nothing is lost, and nothing is sent in a loop.
@Suite(.timeLimit(.minutes(10))) struct QueueStorageFailureTests {
    static let refuse = "CREATE TRIGGER refuse BEFORE DELETE ON mutation BEGIN SELECT RAISE(ABORT, 'the disk is full'); END"
    static let lift = "DROP TRIGGER IF EXISTS refuse"

    /// A queue of user `u1`'s changes in `directory`, sent through `transport` without the client's own retries.
    static func queue(in directory: TemporaryDirectory, _ transport: RecordingTransport, sleeper: any Sleeper = TaskSleeper()) throws
        -> MutationQueue
    {
        let tokens = StaticTokenProvider(Credentials(accessToken: "t", userId: "u1"))
        let base = try #require(URL(string: "https://api.example.test"))
        return MutationQueue(
            configuration: .init(
                directory: directory.url, tokenProvider: tokens,
                rest: RESTClient(
                    configuration: .init(
                        baseURL: base, transport: transport,
                        environment: CacheEnvironment(clock: ManualClock(), cachesDirectory: directory.url), tokenProvider: tokens,
                        retry: .none)),
                sleeper: sleeper, random: { 1 }))
    }

    /// A change sent whose removal from the file fails (a trigger refuses it, as a full disk would) stops the
    /// replay: sent once, kept, and sent once more, with its key, by the next replay once the file takes the
    /// removal. Without the stop the replay sent it again at once, for as long as the file refused.
    @Test func aSentChangeTheFileCannotForgetStopsTheReplayInsteadOfSendingItAgainAndAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport = RecordingTransport()
        let keyField = try #require(HTTPField.Name("Idempotency-Key"))
        let queue = try Self.queue(in: directory, transport)
        try await queue.enqueue(.rest(method: .put, path: "/api/favorites/sleep", headerFields: [:], body: nil), name: "AddFavorite")
        // Another connection makes the file refuse the removal as the server answers, and lifts it after five sends.
        let blocker = try DatabaseQueue(path: queue.fileURL(for: "u1").path)
        let sends = Locked(0)
        transport.stub(.put, "/api/favorites/sleep") { _ in
            let count = sends.withLock { sends in
                sends += 1
                return sends
            }
            if count == 1 { try? blocker.write { try $0.execute(sql: Self.refuse) } }
            if count == 5 { try? blocker.write { try $0.execute(sql: Self.lift) } }
            return .success(TransportResponse(status: 200, body: Data(#"{"success":true}"#.utf8)))
        }

        let first = await queue.replay()
        #expect(sends.withLock { $0 } == 1, "sent once, not again while the file could not forget it")
        #expect(first.sent == 1 && first.stoppedBy != nil)
        #expect(await queue.pending().map(\.name) == ["AddFavorite"], "kept: the next replay sends it")

        try await blocker.write { try $0.execute(sql: Self.lift) }
        let second = await queue.replay()
        #expect(second.sent == 1 && second.stoppedBy == nil && second.remaining == 0)
        let keys = transport.requests.map { $0.headerFields[keyField] }
        #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1], "sent again with its key: \(keys)")
        #expect(await queue.pending().isEmpty)
    }

    /// A queue replaying by itself tries again, with backoff, once its file could not forget a sent change: the
    /// change leaves the queue when the file takes the removal, without waiting for the next enqueue, reconnection or
    /// launch. The backoff grows with each such stop in a row (the mutation's own attempts cannot be counted in a
    /// file that takes no write), and every send carries the same key.
    @Test func aQueueReplayingByItselfRetriesWithBackoffUntilTheFileTakesTheRemoval() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport = RecordingTransport()
        let sleeper = ManualSleeper()
        let keyField = try #require(HTTPField.Name("Idempotency-Key"))
        let queue = try Self.queue(in: directory, transport, sleeper: sleeper)
        try await queue.enqueue(.rest(method: .put, path: "/api/favorites/sleep", headerFields: [:], body: nil), name: "AddFavorite")
        let blocker = try DatabaseQueue(path: queue.fileURL(for: "u1").path)
        let sends = Locked(0)
        transport.stub(.put, "/api/favorites/sleep") { _ in
            let count = sends.withLock { sends in
                sends += 1
                return sends
            }
            if count == 1 { try? blocker.write { try $0.execute(sql: Self.refuse) } }
            if count == 3 { try? blocker.write { try $0.execute(sql: Self.lift) } }
            return .success(TransportResponse(status: 200, body: Data(#"{"success":true}"#.utf8)))
        }

        await queue.start()
        try await waitUntil("a retry waits after the first send") { sleeper.delays.count == 1 }
        #expect(sends.withLock { $0 } == 1)
        sleeper.wakeAll()
        try await waitUntil("a second retry waits after the second send") { sleeper.delays.count == 2 }
        #expect(sends.withLock { $0 } == 2)
        sleeper.wakeAll()
        try await waitUntil("the change left the queue") { await queue.pending().isEmpty }
        await queue.stop()
        #expect(sends.withLock { $0 } == 3)
        #expect(sleeper.delays == [.seconds(2), .seconds(4)], "the backoff grows with each stop in a row")
        let keys = Set(transport.requests.map { $0.headerFields[keyField] })
        #expect(keys.count == 1 && keys.first != nil, "one key for every send")
    }

    /// A create the server stored under its own id, whose removal and remap the file cannot take, stays queued with
    /// the change queued after it, both still naming the device's id; the next replay sends the create again with its
    /// key, and the remap and the change after it go through once the file takes them.
    @Test func aCreateWhoseRemapTheFileCannotTakeIsSentAgainAndRemappedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport = RecordingTransport()
        let keyField = try #require(HTTPField.Name("Idempotency-Key"))
        let queue = try Self.queue(in: directory, transport)
        try await queue.enqueue(
            .rest(method: .post, path: "/api/contacts", headerFields: [:], body: Data(#"{"id":"tmp-1"}"#.utf8)), name: "CreateContact",
            creates: "tmp-1")
        try await queue.enqueue(.rest(method: .delete, path: "/api/contacts/tmp-1", headerFields: [:], body: nil), name: "DeleteContact")
        let blocker = try DatabaseQueue(path: queue.fileURL(for: "u1").path)
        let creates = Locked(0)
        transport.stub(.post, "/api/contacts") { _ in
            if creates.withLock({ count in
                count += 1
                return count
            }) == 1 {
                try? blocker.write { try $0.execute(sql: Self.refuse) }
            }
            // Lifted after five sends, should the replay send again without stopping.
            if creates.withLock({ $0 }) == 5 { try? blocker.write { try $0.execute(sql: Self.lift) } }
            return .success(TransportResponse(status: 201, body: Data(#"{"data":{"id":"srv-1"}}"#.utf8)))
        }
        transport.stub(.delete, "/api/contacts/srv-1", status: 204)

        let first = await queue.replay()
        #expect(creates.withLock { $0 } == 1 && first.stoppedBy == MutationQueue.couldNotForget)
        #expect(await queue.pending().map(\.name) == ["CreateContact", "DeleteContact"])
        #expect(await queue.idRemaps(of: "u1").isEmpty, "no remap kept while the create stays queued")

        try await blocker.write { try $0.execute(sql: Self.lift) }
        let second = await queue.replay()
        #expect(second.stoppedBy == nil && second.remaining == 0 && creates.withLock { $0 } == 2)
        let sent = transport.requests.map { "\($0.method.rawValue) \($0.url.path)" }
        #expect(sent == ["POST /api/contacts", "POST /api/contacts", "DELETE /api/contacts/srv-1"], "\(sent)")
        let keys = transport.requests.prefix(2).map { $0.headerFields[keyField] }
        #expect(keys[0] != nil && keys[0] == keys[1], "the create sent again with its key")
        #expect(await queue.idRemaps(of: "u1").map(\.serverId) == ["srv-1"])
    }
}
