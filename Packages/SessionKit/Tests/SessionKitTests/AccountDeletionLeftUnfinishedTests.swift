import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import SessionKit
import Testing

/// An account deletion that did not finish (an eraser failed, or the process was killed after it began) leaves its
/// marker in the token file, never a token: the next launch signs nobody in, sends nothing, and finishes the deletion
/// for the same user before anything else.
@Suite(.timeLimit(.minutes(10))) struct AccountDeletionLeftUnfinishedTests {
    static func session(_ file: URL, _ transport: RecordingTransport) -> SessionManager {
        SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: FileTokenStore(url: file),
                caches: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()), authEvents: AuthEvents()))
    }

    @Test(arguments: [false, true]) func theNextLaunchFinishesIt(offlineFirst: Bool) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("token.json")
        try FileTokenStore(url: file).save(StoredToken(accessToken: "t-alice", userId: "alice", expiresAt: nil, validatedAt: Date()))
        let transport = RecordingTransport()
        let first = Self.session(file, transport)
        first.addEraser("queue") { _ in throw TokenStoreError.io(operation: "unlink", errno: 13) }
        let report = await first.deleteAccountData()
        #expect(report.failed.map(\.participant) == ["queue", "token"])
        #expect(try FileTokenStore(url: file).load() == .deletionMarker(of: "alice"), "no token, only the deletion's marker")
        #expect(!folder.anyFileContains("t-alice"), "the token outlived the deletion's start")

        let erased = Locked<[String?]>([])
        let relaunched = Self.session(file, transport)
        relaunched.addEraser("queue") { user in erased.withLock { $0.append(user) } }
        if offlineFirst {
            await relaunched.launchOfflineFirst()?.value
        } else {
            await relaunched.launch()
        }
        #expect(erased.withLock { $0 } == ["alice"], "the deletion was not finished for its user")
        #expect(try FileTokenStore(url: file).load() == nil)
        #expect(relaunched.current == .signedOut)
        #expect(transport.requests.isEmpty, "the marker was sent as a token: \(transport.requests.map(\.url.path))")
        // Launched again: nothing left to finish.
        let third = Self.session(file, transport)
        third.addEraser("queue") { user in erased.withLock { $0.append(user) } }
        await third.launch()
        #expect(erased.withLock { $0 }.count == 1)
    }

    /// The deleted user (or another) signs in again in the same run, after an eraser failed: the deletion is finished
    /// before the new token replaces its marker.
    @Test func aSignInFinishesItFirst() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("token.json")
        try FileTokenStore(url: file).save(StoredToken(accessToken: "t-alice", userId: "alice", expiresAt: nil, validatedAt: Date()))
        let transport = RecordingTransport()
        transport.stub(
            .post, "/auth/login", status: 200,
            body: Data(#"{"success":true,"data":{"token":"t-bob","expiresAt":"2030-01-01T00:00:00Z","user":{"id":"bob"}}}"#.utf8))
        let session = Self.session(file, transport)
        let failing = Locked(true)
        let erased = Locked<[String?]>([])
        session.addEraser("queue") { user in
            if failing.withLock({ $0 }) { throw TokenStoreError.io(operation: "unlink", errno: 13) }
            erased.withLock { $0.append(user) }
        }
        #expect(!(await session.deleteAccountData()).isComplete)
        failing.withLock { $0 = false }
        _ = try await session.signIn(email: "bob@example.com", password: "Password2")
        #expect(erased.withLock { $0 } == ["alice"], "the sign-in replaced the marker before the deletion was finished")
        #expect(try FileTokenStore(url: file).load()?.userId == "bob")
    }
}
