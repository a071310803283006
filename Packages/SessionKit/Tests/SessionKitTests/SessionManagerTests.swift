import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import SessionKit
import SessionKitTesting
import Testing

/// The session's state machine, over a recording transport and recording cache participants.
@Suite(.timeLimit(.minutes(10))) struct SessionManagerTests {
    let transport = RecordingTransport()
    let store: InMemoryTokenStore
    let caches = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
    let participant = RecordingParticipant(name: "rest")
    let events = AuthEvents()
    let session: SessionManager

    static let token = StoredToken(accessToken: "t-1", userId: "u1", expiresAt: nil, validatedAt: Date())

    init(stored: StoredToken? = Self.token) {
        store = InMemoryTokenStore(stored)
        caches.register(participant)
        session = SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: store, caches: caches,
                authEvents: events))
    }

    static func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func launchWithAValidTokenSignsIn() async {
        transport.stub(
            .get, "/auth/validate", status: 200,
            body: Self.json(#"{"valid":true,"userId":"u1","expiresAt":"2030-01-01T00:00:00Z"}"#))
        await session.launch()
        #expect(session.current == .signedIn(SignedInUser(userId: "u1", expiresAt: Date(timeIntervalSince1970: 1_893_456_000))))
        #expect(transport.requests.first?.headerFields[.authorization] == "Bearer t-1")
        #expect(await session.currentCredentials() == Credentials(accessToken: "t-1", userId: "u1"))
        #expect(participant.calls.isEmpty)
    }

    @Test func launchWithARefusedTokenClearsTheTokenAndEveryCache() async {
        transport.stub(.get, "/auth/validate", status: 401, body: Self.json(#"{"valid":false}"#))
        await session.launch()
        #expect(session.current == .signedOut)
        #expect(store.token == nil)
        #expect(participant.calls == [.clearAll])
        #expect(await session.currentCredentials() == nil)
    }

    @Test func launchOfflineKeepsTheUserThenRevalidates() async {
        transport.stub(.get, "/auth/validate", error: .offline(reason: "airplane mode"))
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        await session.launch()
        #expect(session.current == .offline(SignedInUser(userId: "u1", expiresAt: nil)))
        #expect(await session.currentCredentials() != nil, "cached content stays readable offline")
        await session.revalidate()
        #expect(session.current == .signedIn(SignedInUser(userId: "u1", expiresAt: nil)))
    }

    /// A session over `token` whose server cannot be reached, on the clock `now`.
    static func offlineSession(
        _ token: StoredToken, now: Locked<Date>, transport given: RecordingTransport? = nil
    ) -> (SessionManager, InMemoryTokenStore, RecordingParticipant) {
        let store = InMemoryTokenStore(token)
        let caches = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
        let participant = RecordingParticipant(name: "rest")
        caches.register(participant)
        let transport = given ?? RecordingTransport()
        if given == nil { transport.stub(.get, "/auth/validate", error: .offline(reason: "airplane mode")) }
        let session = SessionManager(
            configuration: .init(
                baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: store, caches: caches,
                authEvents: AuthEvents(), offlineGrace: .seconds(72 * 3_600), now: { now.withLock { $0 } }))
        return (session, store, participant)
    }

    /// Security review, finding 4: a device kept offline cannot keep a session the server may have
    /// revoked: the token's own expiry, then the offline grace since the server last accepted it, end it.
    @Test func offlineUseEndsAtTheTokensExpiryAndAfterTheOfflineGrace() async {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = Locked(start)
        func offlineSession(_ token: StoredToken) -> (SessionManager, InMemoryTokenStore, RecordingParticipant) {
            Self.offlineSession(token, now: now)
        }
        // Past its own expiry, a token is not used offline: the session ends and the caches are cleared.
        let (expired, expiredStore, expiredCaches) = offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: start.addingTimeInterval(-1), validatedAt: start.addingTimeInterval(-60))
        )
        await expired.launch()
        #expect(expired.current == .expired(SessionExpiry(status: 0, path: "", reason: .tokenExpired)))
        #expect(expiredStore.token == nil)
        #expect(expiredCaches.calls == [.clearAll])
        // Validated a day ago: offline use goes on (the positive control)…
        let (recent, recentStore, recentCaches) = offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: start.addingTimeInterval(-86_400)))
        await recent.launch()
        #expect(recent.current == .offline(SignedInUser(userId: "u1", expiresAt: nil)))
        #expect(await recent.currentCredentials() != nil)
        // …until the grace has passed since the server last accepted the token: then nothing is handed out.
        now.withLock { $0 = start.addingTimeInterval(2 * 86_400) }
        #expect(await recent.currentCredentials() == nil)
        #expect(recent.current == .expired(SessionExpiry(status: 0, path: "", reason: .offlineTooLong)))
        #expect(recentStore.token == nil)
        #expect(recentCaches.calls == [.clearAll])
        // A launch long after the last validation ends the session at once.
        let (stale, _, _) = offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: start.addingTimeInterval(-4 * 86_400)))
        await stale.launch()
        #expect(stale.current == .expired(SessionExpiry(status: 0, path: "", reason: .offlineTooLong)))
    }

    /// Security review two, finding 5: a token never validated on this device is not used offline, and
    /// a clock set back cannot stretch the grace, across a relaunch too.
    @Test func offlineUseNeedsAValidationAndAClockThatNeverWentBack() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = Locked(start)
        // A file from before the grace existed: no validatedAt, no expiry. Nothing is handed out while the
        // launch's check runs, and offline the session ends.
        let (legacy, legacyStore, legacyCaches) = Self.offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: nil), now: now)
        let check = legacy.launchOfflineFirst()
        #expect(await legacy.currentCredentials() == nil, "a token never validated waits for the server")
        await check?.value
        #expect(legacy.current == .expired(SessionExpiry(status: 0, path: "", reason: .notValidated)))
        #expect(legacyStore.token == nil)
        #expect(legacyCaches.calls == [.clearAll])

        // Validated at the start; used offline a day later: the high-water mark is kept with the token.
        let validated = StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: start)
        now.withLock { $0 = start.addingTimeInterval(86_400) }
        let (first, firstStore, _) = Self.offlineSession(validated, now: now)
        await first.launch()
        #expect(first.current == .offline(SignedInUser(userId: "u1", expiresAt: nil)))
        let kept = try #require(firstStore.token)
        #expect(kept.lastSeenAt == start.addingTimeInterval(86_400))
        // In the same run, the clock set back (within the grace from validatedAt) ends it.
        now.withLock { $0 = start.addingTimeInterval(3_600) }
        #expect(await first.currentCredentials() == nil)
        #expect(first.current == .expired(SessionExpiry(status: 0, path: "", reason: .clockSetBack)))
        // A relaunch with the clock set back ends it too, from the stored mark.
        let (relaunched, _, relaunchedCaches) = Self.offlineSession(kept, now: now)
        await relaunched.launch()
        #expect(relaunched.current == .expired(SessionExpiry(status: 0, path: "", reason: .clockSetBack)))
        #expect(relaunchedCaches.calls == [.clearAll])
        // A correction within the tolerance is no rollback (the positive control).
        now.withLock { $0 = start.addingTimeInterval(86_400 - StoredToken.clockTolerance / 2) }
        let (corrected, _, _) = Self.offlineSession(kept, now: now)
        await corrected.launch()
        #expect(corrected.current == .offline(SignedInUser(userId: "u1", expiresAt: nil)))
    }

    /// The second review's attacks on the fix: the clock set back to just after the offline launch, once the
    /// app has been used for days since, is seen (each use moves the mark on); and a session that stays up
    /// signed in while the network goes is limited as an offline launch is (the server is asked again).
    @Test func theMarkMovesWithUseAndASignedInSessionIsLimitedToo() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = Locked(start.addingTimeInterval(60))
        let (offline, store, _) = Self.offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: start), now: now)
        await offline.launch()
        #expect(offline.current == .offline(SignedInUser(userId: "u1", expiresAt: nil)))
        now.withLock { $0 = start.addingTimeInterval(71 * 3_600) }
        #expect(await offline.currentCredentials() != nil, "used offline within the grace")
        #expect(store.token?.lastSeenAt == start.addingTimeInterval(71 * 3_600), "the mark moved with the use, and was kept")
        now.withLock { $0 = start.addingTimeInterval(120) }
        #expect(await offline.currentCredentials() == nil)
        #expect(offline.current == .expired(SessionExpiry(status: 0, path: "", reason: .clockSetBack)))

        // Signed in at the start (the server accepted the token), then the network goes for good.
        let transport = RecordingTransport()
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        transport.stub(.get, "/auth/validate", error: .offline(reason: "airplane mode"))
        now.withLock { $0 = start }
        let (running, _, caches) = Self.offlineSession(
            StoredToken(accessToken: "t", userId: "u1", expiresAt: nil, validatedAt: start), now: now, transport: transport)
        await running.launch()
        #expect(running.current == .signedIn(SignedInUser(userId: "u1", expiresAt: nil)))
        now.withLock { $0 = start.addingTimeInterval(71 * 3_600) }
        #expect(await running.currentCredentials() != nil, "within the grace, no question asked")
        #expect(transport.requests.count == 1)
        now.withLock { $0 = start.addingTimeInterval(73 * 3_600) }
        #expect(await running.currentCredentials() == nil, "past the grace, the server was asked and could not answer")
        #expect(transport.requests.count == 2)
        #expect(running.current == .expired(SessionExpiry(status: 0, path: "", reason: .offlineTooLong)))
        #expect(caches.calls == [.clearAll])
    }

    @Test func launchWithoutATokenOrWithACorruptOneIsSignedOut() async {
        let empty = SessionManagerTests(stored: nil)
        await empty.session.launch()
        #expect(empty.session.current == .signedOut)
        #expect(empty.transport.requests.isEmpty)

        store.fail(with: .corrupt(reason: "truncated"))
        await session.launch()
        #expect(session.current == .signedOut)
        #expect(transport.requests.isEmpty)
    }

    /// A store whose reads fail with `.io` while `unreadable`; its writes and deletions work.
    final class UnreadableForNow: TokenStore {
        let held: Locked<StoredToken?>
        let unreadable = Locked(true)
        init(_ token: StoredToken?) { held = Locked(token) }
        func load() throws(TokenStoreError) -> StoredToken? {
            if unreadable.withLock({ $0 }) { throw .io(operation: "read", errno: 5) }
            return held.withLock { $0 }
        }
        func save(_ token: StoredToken) throws(TokenStoreError) { held.withLock { $0 = token } }
        func delete() throws(TokenStoreError) { held.withLock { $0 = nil } }
    }

    /// A store that cannot be read now (a file system error; on Apple platforms a Keychain not yet unlocked, as at a
    /// launch in the background before the first unlock) signs this launch out, and keeps the token for the next one.
    @Test func aTokenTheStoreCouldNotReadNowIsKeptForTheNextLaunch() async throws {
        let store = UnreadableForNow(Self.token)
        let launch = {
            let session = SessionManager(
                configuration: .init(
                    baseURL: URL(string: "https://api.example.com")!, transport: transport, tokenStore: store, caches: caches,
                    authEvents: AuthEvents()))
            await session.launch()
            return session.current
        }
        #expect(await launch() == .signedOut && transport.requests.isEmpty)
        store.unreadable.withLock { $0 = false }
        #expect(store.held.withLock { $0 } == Self.token, "the token was deleted for a read that failed")
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        #expect(await launch().user?.userId == "u1")
    }

    @Test func launchPublishesValidatingThenTheOutcome() async throws {
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        var states = session.states().makeAsyncIterator()
        #expect(await states.next() == .signedOut)
        await session.launch()
        // A deadline first: a launch that never signs in fails here instead of waiting for a state for ever.
        try await waitUntil("the launch signed in") {
            session.current == .signedIn(SignedInUser(userId: "u1", expiresAt: nil))
        }
        #expect(await states.next() == .validating)
        #expect(await states.next() == .signedIn(SignedInUser(userId: "u1", expiresAt: nil)))
    }

    @Test(arguments: [
        ("", "Please enter a valid email address"), ("alice", "Please enter a valid email address"),
        ("a@@b.com", "Please enter a valid email address"), ("a@b@c.com", "Please enter a valid email address"),
        ("alice@example", "Please enter a valid email address"), ("al ice@example.com", "Please enter a valid email address"),
    ])
    func signInRefusesBadEmailsBeforeAnyRequest(_ email: String, _ message: String) async {
        await #expect(throws: SignInError.invalidEmail(message: message)) {
            try await session.signIn(email: email, password: "Password1")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [
        ("Passwor1", []), ("Pass1", [CredentialRules.PasswordRequirement.minimumLength]),
        ("password1", [.uppercaseLetter]), ("Password", [.digit]), ("short", [.minimumLength, .uppercaseLetter, .digit]),
    ])
    func signInReportsEachUnmetPasswordRequirement(_ password: String, _ unmet: [CredentialRules.PasswordRequirement]) async {
        transport.stub(
            .post, "/auth/login", status: 401,
            body: Self.json(#"{"success":false,"error":{"code":"INVALID_CREDENTIALS","message":"Wrong e-mail or password."}}"#))
        do {
            try await session.signIn(email: "alice@example.com", password: password)
            Issue.record("expected a refusal")
        } catch {
            #expect(error == (unmet.isEmpty ? .rejected(message: "Wrong e-mail or password.") : .weakPassword(unmet)))
        }
    }

    @Test func signInKeepsTheTokenAfterClearingEveryCache() async throws {
        transport.stub(
            .post, "/auth/login", status: 200,
            body: Self.json(
                #"{"success":true,"data":{"token":"t-2","expiresAt":"2030-01-01T00:00:00Z","user":{"id":"u2"}}}"#))
        let user = try await session.signIn(email: "bob@example.com", password: "Password2")
        #expect(user.userId == "u2")
        #expect(store.token?.accessToken == "t-2")
        #expect(participant.calls == [.clearAll])
        #expect(session.current.user?.userId == "u2")
        let body = try #require(transport.requests.first?.body)
        #expect(try JSONValue.parse(body)["email"]?.stringValue == "bob@example.com")
        #expect(transport.requests.first?.headerFields[.accept] == "application/json", "the session asks for JSON")
    }

    /// Security review, finding 7: a clear that fails must not let the next user in, where they could read
    /// the previous user's data; each attempt retries the clear, and the one that completes signs in.
    @Test func aSignInWaitsUntilThePreviousUsersDataIsCleared() async throws {
        transport.stub(
            .post, "/auth/login", status: 200,
            body: Self.json(#"{"success":true,"data":{"token":"t-2","expiresAt":"2030-01-01T00:00:00Z","user":{"id":"u2"}}}"#))
        let stubborn = RecordingParticipant(name: "graphql", failing: true)
        caches.register(stubborn)
        await #expect(throws: SignInError.previousUserDataNotCleared(participants: ["graphql"])) {
            try await session.signIn(email: "bob@example.com", password: "Password2")
        }
        #expect(session.current.user == nil)
        #expect(store.token?.accessToken != "t-2")
        stubborn.setFailing(false)
        #expect(try await session.signIn(email: "bob@example.com", password: "Password2").userId == "u2")
        #expect(stubborn.calls == [.clearAll, .clearAll])
        #expect(store.token?.accessToken == "t-2")
    }

    /// A cache participant whose clearing asks the session for a token: what work of the previous user
    /// starting during the clearing would get.
    struct ProbingParticipant: CacheClearingParticipant {
        let participantName = "probe"
        let category = CacheCategory.rest
        let probe: @Sendable () async -> Void
        func clearAll() async throws { await probe() }
        func clear(forAccountId accountId: String) async throws {}
        func clear(forKey key: String) async throws {}
    }

    /// During a sign-in's clearing no token is handed out: neither the previous user's (their work would
    /// write after the clearing) nor the new one's (it is saved only once the clearing completed).
    @Test func noTokenIsHandedOutWhileASignInClears() async throws {
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        await session.launch()
        #expect(await session.currentCredentials()?.userId == "u1")
        let seen = Locked<[Credentials?]>([])
        let session = self.session
        caches.register(
            ProbingParticipant {
                let credentials = await session.currentCredentials()
                seen.withLock { $0.append(credentials) }
            })
        transport.stub(
            .post, "/auth/login", status: 200,
            body: Self.json(#"{"success":true,"data":{"token":"t-2","user":{"id":"u2"}}}"#))
        try await session.signIn(email: "bob@example.com", password: "Password2")
        #expect(seen.withLock { $0 } == [nil], "handed out during the clearing: \(seen.withLock { $0 })")
        #expect(await session.currentCredentials()?.userId == "u2")
    }

    @Test func signInFailuresAreTyped() async {
        transport.stub(.post, "/auth/login", error: .offline(reason: "down"))
        transport.stub(.post, "/auth/login", status: 200, body: Self.json(#"{"success":true,"data":{}}"#))
        await #expect(throws: SignInError.api(.transport(.offline(reason: "down")))) {
            try await session.signIn(email: "a@b.co", password: "Password1")
        }
        do {
            try await session.signIn(email: "a@b.co", password: "Password1")
            Issue.record("expected a decoding error")
        } catch {
            guard case .api(.decoding) = error else {
                Issue.record("got \(error)")
                return
            }
        }
        #expect(session.current == .signedOut)
    }

    @Test func manyUnauthorizedEventsExpireTheSessionOnceAndCancelItsWork() async throws {
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        await session.launch()
        let work = session.cancelOnSessionEnd(Task { try await Task.sleep(for: .seconds(3_600)) })
        // If the session never cancels it, the wait below fails after its deadline; the work must not outlive the test.
        defer { work.cancel() }
        var states = session.states().makeAsyncIterator()
        _ = await states.next()
        for _ in 0..<5 { events.publish(AuthEvent(kind: .unauthorized, userId: "u1", path: "/graphql")) }
        // A deadline first: a session that never expires fails here instead of waiting for a state for ever.
        try await waitUntil("the session expired") {
            session.current == .expired(SessionExpiry(status: 401, path: "/graphql"))
        }
        #expect(await states.next() == .expired(SessionExpiry(status: 401, path: "/graphql")))
        // Published last: whoever sees `.expired` finds the caches cleared and the token gone.
        #expect(store.token == nil)
        #expect(participant.calls == [.clearAll])
        // Once all five events are handled, still exactly one clear and one expiry.
        try await waitUntil("the five events handled") { session.handledAuthEvents == 5 }
        #expect(participant.calls == [.clearAll])
        #expect(session.current == .expired(SessionExpiry(status: 401, path: "/graphql")))
        try await waitUntil("the session's work cancelled") { work.isCancelled }
        await #expect(throws: CancellationError.self) { try await work.value }
        #expect(await session.currentCredentials() == nil)
        #expect(session.current.user == nil)
    }

    @Test func anEventForAnotherUsersTokenIsIgnored() async throws {
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        await session.launch()
        // Another user's 403 alone: handled, and nothing changes (a late answer to a previous user's request).
        events.publish(AuthEvent(kind: .forbidden, userId: "u0", path: "/api/me"))
        try await waitUntil("the other user's event handled") { session.handledAuthEvents == 1 }
        #expect(session.current == .signedIn(SignedInUser(userId: "u1", expiresAt: nil)))
        #expect(participant.calls.isEmpty, "no cache was cleared")
        #expect(store.token?.accessToken == Self.token.accessToken)
        #expect(await session.currentCredentials()?.userId == "u1")
        // This user's 403 ends the session.
        events.publish(AuthEvent(kind: .forbidden, userId: "u1", path: "/api/me"))
        try await waitUntil("this user's event handled") { session.handledAuthEvents == 2 }
        #expect(session.current == .expired(SessionExpiry(status: 403, path: "/api/me")))
        #expect(SessionExpiry(status: 403, path: "/api/me").message == "Session expired, please log in again")
    }

    @Test func logoutClearsEverythingEvenWhenTheServerFails() async {
        transport.stub(.get, "/auth/validate", status: 200, body: Self.json(#"{"valid":true,"userId":"u1"}"#))
        transport.stub(.post, "/auth/logout", status: 500)
        await session.launch()
        let report = await session.logOut()
        #expect(report.isComplete && report.succeeded == ["rest", "token"])
        #expect(store.token == nil && session.current == .signedOut)
        #expect(participant.calls == [.clearAll])
        #expect(transport.requests.last?.headerFields[.authorization] == "Bearer t-1")
    }

    /// Every end of a session is one event, heard by every handler before the clearing and before the next
    /// state is published: a launch whose token is refused, a 401, the offline grace, a logout, a deletion,
    /// and a sign-in (which ends whoever was before).
    @Test func everyEndOfASessionIsHeardOnceWithItsUserBeforeTheNextStateIsPublished() async throws {
        let heard = Locked<[SessionEnd]>([])
        let clearsBefore = Locked<[Int]>([])
        let statesSeen = Locked<[SessionState]>([])
        let participant = self.participant
        let session = self.session
        session.onSessionEnd { end in
            heard.withLock { $0.append(end) }
            clearsBefore.withLock { $0.append(participant.calls.count) }
            statesSeen.withLock { $0.append(session.current) }
        }
        // A refused token at launch.
        transport.stub(.get, "/auth/validate", status: 401, body: Self.json(#"{"valid":false}"#))
        await session.launch()
        // The sign-ins' answers, in order (the transport answers each stub once, its last one again).
        for user in 2...5 {
            transport.stub(
                .post, "/auth/login", status: 200,
                body: Self.json(#"{"success":true,"data":{"token":"t-\#(user)","user":{"id":"u\#(user)"}}}"#))
        }
        // A sign-in with nobody before, then a 401.
        try await session.signIn(email: "bob@example.com", password: "Password2")
        events.publish(AuthEvent(kind: .unauthorized, userId: "u2", path: "/api/me"))
        try await waitUntil("the 401 handled") { session.handledAuthEvents == 1 }
        // A sign-in over another user, a logout, a deletion.
        try await session.signIn(email: "carol@example.com", password: "Password3")
        try await session.signIn(email: "dave@example.com", password: "Password4")
        transport.stub(.post, "/auth/logout", status: 200)
        await session.logOut()
        try await session.signIn(email: "erin@example.com", password: "Password5")
        await session.deleteAccountData()
        #expect(
            heard.withLock { $0 }
                == [
                    SessionEnd(userId: "u1", cause: .expired), SessionEnd(userId: nil, cause: .signIn),
                    SessionEnd(userId: "u2", cause: .expired), SessionEnd(userId: nil, cause: .signIn),
                    SessionEnd(userId: "u3", cause: .signIn), SessionEnd(userId: "u4", cause: .logout),
                    SessionEnd(userId: nil, cause: .signIn), SessionEnd(userId: "u5", cause: .accountDeleted),
                ])
        // Each handler ran before its end's clearing (one clear per end), and before the next state was published.
        #expect(clearsBefore.withLock { $0 } == Array(0..<8))
        let seen = statesSeen.withLock { $0 }
        #expect(seen.count == 8 && seen[2] == .signedIn(SignedInUser(userId: "u2", expiresAt: nil)), "the 401's handler saw \(seen)")
        #expect(seen.count == 8 && seen[5] == .signedIn(SignedInUser(userId: "u4", expiresAt: nil)), "the logout's handler saw \(seen)")
        // The offline grace ends a session too.
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = Locked(start)
        let (offline, _, _) = Self.offlineSession(
            StoredToken(accessToken: "t", userId: "u6", expiresAt: nil, validatedAt: start.addingTimeInterval(-86_400)), now: now)
        let offlineHeard = Locked<[SessionEnd]>([])
        offline.onSessionEnd { end in offlineHeard.withLock { $0.append(end) } }
        await offline.launch()
        now.withLock { $0 = start.addingTimeInterval(2 * 86_400) }
        #expect(await offline.currentCredentials() == nil)
        #expect(offlineHeard.withLock { $0 } == [SessionEnd(userId: "u6", cause: .expired)])
    }

    @Test func accountSwitchClearsOnlyThatAccount() async {
        await session.switchAccount(from: "100")
        #expect(participant.calls == [.clearAccount("100")])
    }

    @Test func accountDeletionErasesCachesTokenAndRegisteredData() async {
        let settings = InMemoryTokenStore(StoredToken(accessToken: "setting", userId: "u1", expiresAt: nil))
        session.addEraser("settings") { _ in try settings.delete() }
        session.addEraser("queue") { _ in throw TokenStoreError.io(operation: "unlink", errno: 13) }
        let report = await session.deleteAccountData()
        #expect(report.succeeded == ["rest", "settings"])
        #expect(report.failed.map(\.participant) == ["queue", "token"], "the marker is kept for the next launch")
        #expect(settings.token == nil && session.current == .signedOut)
        #expect(store.token == .deletionMarker(of: "u1") && store.token?.erasingAccount == true)
    }
}
