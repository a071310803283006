import APICore
import APICoreTesting
import CacheKit
import Foundation
import HTTPTypes
import SessionKit
import SessionKitTesting
import Testing

/// A launch's token check writes the token file only when what it learned changes what is stored: a
/// relaunch soon after the last check costs no durable write beside its first screen.
@Suite(.timeLimit(.minutes(10))) struct TokenCheckSavingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Launches with `stored` against a server that accepts it, answering `body`; returns the token held after.
    func launch(with stored: StoredToken, body: String = #"{"valid":true,"userId":"u1"}"#) async -> (StoredToken?, SessionState) {
        let store = InMemoryTokenStore(stored)
        let transport = RecordingTransport()
        transport.stub(.get, "/auth/validate", status: 200, body: Data(body.utf8))
        let session = SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: store,
                caches: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()), authEvents: AuthEvents(),
                offlineGrace: .seconds(72 * 3_600), now: { Self.now }))
        await session.launch()
        return (store.token, session.current)
    }

    @Test func aCheckSoonAfterTheLastOneLeavesTheFileAsItWas() async {
        let recent = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: Self.now.addingTimeInterval(-600))
        let (held, state) = await launch(with: recent)
        #expect(state == .signedIn(SignedInUser(userId: "u1", expiresAt: nil)))
        #expect(held?.validatedAt == recent.validatedAt)
    }

    @Test func anOlderCheckOrANewExpiryIsSaved() async {
        // Checked three hours ago, over a hundredth of the 72-hour grace: the new check is stored.
        let older = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: Self.now.addingTimeInterval(-3 * 3_600))
        #expect(await launch(with: older).0?.validatedAt == Self.now)
        // Checked a minute ago, but the server moved the expiry: stored with it.
        let recent = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: Self.now.addingTimeInterval(-60))
        let renewed = await launch(with: recent, body: #"{"valid":true,"userId":"u1","expiresAt":"2030-01-01T00:00:00Z"}"#).0
        #expect(renewed?.expiresAt == Date(timeIntervalSince1970: 1_893_456_000))
        #expect(renewed?.validatedAt == Self.now)
        // Never checked (a token from before checks were recorded): stored.
        let unchecked = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil)
        #expect(await launch(with: unchecked).0?.validatedAt == Self.now)
    }

    /// Counts the saves it is asked for.
    final class CountingTokenStore: TokenStore {
        let held: Locked<StoredToken?>
        let saves = Locked(0)
        init(_ token: StoredToken?) { held = Locked(token) }
        func load() throws(TokenStoreError) -> StoredToken? { held.withLock { $0 } }
        func save(_ token: StoredToken) throws(TokenStoreError) {
            saves.withLock { $0 += 1 }
            held.withLock { $0 = token }
        }
        func delete() throws(TokenStoreError) { held.withLock { $0 = nil } }
    }

    /// Many requests at once, past the mark's five minutes: the token file is written once, not once a request, and
    /// the mark is the latest.
    @Test func concurrentUsesPastTheMarkWriteTheTokenOnce() async throws {
        let recent = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: Self.now.addingTimeInterval(-600))
        let store = CountingTokenStore(recent)
        let transport = RecordingTransport()
        transport.stub(.get, "/auth/validate", status: 200, body: Data(#"{"valid":true,"userId":"u1"}"#.utf8))
        let now = Locked(Self.now)
        let session = SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: store,
                caches: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()), authEvents: AuthEvents(),
                offlineGrace: .seconds(72 * 3_600), now: { now.withLock { $0 } }))
        await session.launch()
        let before = store.saves.withLock { $0 }
        now.withLock { $0 = Self.now.addingTimeInterval(600) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = await session.currentCredentials() } }
        }
        #expect(store.saves.withLock { $0 } - before == 1, "each use wrote the token")
        #expect(store.held.withLock { $0?.lastSeenAt } == Self.now.addingTimeInterval(600))
    }
}
