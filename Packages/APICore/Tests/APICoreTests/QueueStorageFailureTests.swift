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
    /// A change sent whose removal from the file fails (a trigger refuses it, as a full disk would) stops the
    /// replay: sent once, kept, and sent once more, with its key, by the next replay once the file takes the
    /// removal. Without the stop the replay sent it again at once, for as long as the file refused.
    @Test func aSentChangeTheFileCannotForgetStopsTheReplayInsteadOfSendingItAgainAndAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let credentials = Credentials(accessToken: "t", userId: "u1")
        let tokens = StaticTokenProvider(credentials)
        let transport = RecordingTransport()
        let base = try #require(URL(string: "https://api.example.test"))
        let keyField = try #require(HTTPField.Name("Idempotency-Key"))
        let queue = MutationQueue(
            configuration: .init(
                directory: directory.url, tokenProvider: tokens,
                rest: RESTClient(
                    configuration: .init(
                        baseURL: base, transport: transport,
                        environment: CacheEnvironment(clock: ManualClock(), cachesDirectory: directory.url), tokenProvider: tokens,
                        retry: .none))))
        try await queue.enqueue(.rest(method: .put, path: "/api/favorites/sleep", headerFields: [:], body: nil), name: "AddFavorite")
        // Another connection makes the file refuse the removal as the server answers, and lifts it after five sends.
        let blocker = try DatabaseQueue(path: queue.fileURL(for: "u1").path)
        let refuse = "CREATE TRIGGER refuse BEFORE DELETE ON mutation BEGIN SELECT RAISE(ABORT, 'the disk is full'); END"
        let lift = "DROP TRIGGER IF EXISTS refuse"
        let sends = Locked(0)
        transport.stub(.put, "/api/favorites/sleep") { _ in
            let count = sends.withLock { sends in
                sends += 1
                return sends
            }
            if count == 1 { try? blocker.write { try $0.execute(sql: refuse) } }
            if count == 5 { try? blocker.write { try $0.execute(sql: lift) } }
            return .success(TransportResponse(status: 200, body: Data(#"{"success":true}"#.utf8)))
        }

        let first = await queue.replay()
        #expect(sends.withLock { $0 } == 1, "sent once, not again while the file could not forget it")
        #expect(first.sent == 1 && first.stoppedBy != nil)
        #expect(await queue.pending().map(\.name) == ["AddFavorite"], "kept: the next replay sends it")

        try await blocker.write { try $0.execute(sql: lift) }
        let second = await queue.replay()
        #expect(second.sent == 1 && second.stoppedBy == nil && second.remaining == 0)
        let keys = transport.requests.map { $0.headerFields[keyField] }
        #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1], "sent again with its key: \(keys)")
        #expect(await queue.pending().isEmpty)
    }
}
