import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import SessionKit
import Testing

/// A launch's token check still in flight when the session ends (a logout, another user's sign-in) must not write
/// the ended user's token back into the file: the next relaunch would sign them in again, or over the next user.
/// Each test holds the check's answer until the ending is complete, then lets it through, and reads the real file.
@Suite(.timeLimit(.minutes(10))) struct TokenWrittenAfterTheEndTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// Checked three hours ago: past a hundredth of the grace, so a successful check writes the file.
    static let alice = StoredToken(accessToken: "t-alice", userId: "alice", expiresAt: nil, validatedAt: now.addingTimeInterval(-3 * 3_600))

    /// The check's answer, held until `release`; every other route answers at once.
    final class HeldCheck: HTTPTransport {
        private let answer = Locked<Result<TransportResponse, TransportError>?>(nil)
        private let gate = AsyncGate()
        private let arrivals = Locked(0)

        var arrived: Bool { arrivals.withLock { $0 > 0 } }

        func release(_ answer: Result<TransportResponse, TransportError>) {
            self.answer.withLock { $0 = answer }
            gate.open()
        }

        func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
            switch request.url.path {
            case "/auth/validate":
                arrivals.withLock { $0 += 1 }
                // Suspended at the gate (a logout cancels the check's task; a gate does not spin on it).
                await gate.wait()
                guard let answer = answer.withLock({ $0 }) else { throw .cancelled }
                return try answer.get()
            case "/auth/login":
                let body = #"{"success":true,"data":{"token":"t-bob","expiresAt":"2030-01-01T00:00:00Z","user":{"id":"bob"}}}"#
                return TransportResponse(status: 200, body: Data(body.utf8))
            default:
                return TransportResponse(status: 200, body: Data())
            }
        }
    }

    static func session(_ file: URL, _ transport: any HTTPTransport) -> SessionManager {
        SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: FileTokenStore(url: file),
                caches: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()), authEvents: AuthEvents(),
                offlineGrace: .seconds(72 * 3_600), now: { Self.now }))
    }

    /// Alice's token in a file of `folder`, and a session relaunched offline first over it whose check has reached the
    /// server and is held there.
    static func relaunchedWithItsCheckHeld(in folder: TemporaryDirectory) async throws -> (
        file: URL, transport: HeldCheck, session: SessionManager, check: Task<Void, Never>
    ) {
        let file = folder.url.appendingPathComponent("token.json")
        try FileTokenStore(url: file).save(alice)
        let transport = HeldCheck()
        let session = session(file, transport)
        let check = try #require(session.launchOfflineFirst())
        try await waitUntil("the launch's check reached the server") { transport.arrived }
        return (file, transport, session, check)
    }

    static let answers: [(String, Result<TransportResponse, TransportError>)] = [
        ("accepted", .success(TransportResponse(status: 200, body: Data(#"{"valid":true,"userId":"alice"}"#.utf8)))),
        ("unreachable", .failure(.offline(reason: "no network"))),
        ("a server error", .success(TransportResponse(status: 503, body: Data()))),
    ]

    /// A logout while the launch's check runs (the session names nobody yet) is heard with the user logging out, so
    /// what is hers goes with it (an app that discards the queue at a logout erases hers).
    @Test func aLogoutWhileTheCheckRunsIsHeardWithItsUser() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (_, transport, session, check) = try await Self.relaunchedWithItsCheckHeld(in: folder)
        #expect(session.current == .validating)
        let heard = Locked<[SessionEnd]>([])
        session.onSessionEnd { end in heard.withLock { $0.append(end) } }
        await session.logOut()
        transport.release(Self.answers[0].1)
        await check.value
        #expect(heard.withLock { $0 } == [SessionEnd(userId: "alice", cause: .logout)])
    }

    /// Alice relaunches offline first; she logs out while the check is in flight; the check then ends. Nobody is
    /// signed in after the next relaunch, whatever the check learned.
    @Test(arguments: 0..<answers.count) func aCheckAnsweredAfterALogoutWritesNothing(_ index: Int) async throws {
        let (name, answer) = Self.answers[index]
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (file, transport, session, check) = try await Self.relaunchedWithItsCheckHeld(in: folder)
        await session.logOut()
        transport.release(answer)
        await check.value
        #expect(try FileTokenStore(url: file).load() == nil, "the check answered \(name) wrote the token back")
        #expect(session.current == .signedOut)
        let relaunched = Self.session(file, transport)
        await relaunched.launch()
        #expect(relaunched.current == .signedOut)
    }

    /// Bob signs in on the device while Alice's relaunch check is in flight: the file holds Bob's token after it.
    @Test(arguments: 0..<answers.count) func aCheckAnsweredAfterAnotherUsersSignInLeavesTheirToken(_ index: Int) async throws {
        let (name, answer) = Self.answers[index]
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (file, transport, session, check) = try await Self.relaunchedWithItsCheckHeld(in: folder)
        _ = try await session.signIn(email: "bob@example.com", password: "Password2")
        transport.release(answer)
        await check.value
        #expect(try FileTokenStore(url: file).load()?.userId == "bob", "the check answered \(name) wrote Alice's token over Bob's")
        #expect(session.current.user?.userId == "bob")
    }
}
