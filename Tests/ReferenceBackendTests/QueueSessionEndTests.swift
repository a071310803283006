import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// A change is kept for the session it was made in only: a logout that erases the user's queue while a change is
/// being queued (the queue waiting on who is signed in) leaves nothing of it, and an import's later chunks are
/// never filed for a user who signed in after its first (REQ SEC-2, OFF-23).
@Suite(.timeLimit(.minutes(10))) struct QueueSessionEndTests {
    /// Credentials whose next read waits until the test lets it go: the moment the queue waits on who is signed in.
    final class HeldTokenProvider: TokenProvider {
        private let state = Locked<(armed: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
        let credentials: Credentials

        init(_ credentials: Credentials) {
            self.credentials = credentials
        }

        /// The next read waits for ``release()``.
        func holdNextRead() { state.withLock { $0.armed = true } }
        /// Whether a read is waiting.
        var isHolding: Bool { state.withLock { $0.waiter != nil } }
        /// Lets the waiting read go on.
        func release() {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }

        func currentCredentials() async -> Credentials? {
            if state.withLock({ $0.armed }) {
                await withCheckedContinuation { waiter in
                    state.withLock { state in
                        state.armed = false
                        state.waiter = waiter
                    }
                }
            }
            return credentials
        }
    }

    @Test func aChangeQueuedWhileItsUsersQueueIsErasedAtLogoutIsNotKept() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let tokens = HeldTokenProvider(Credentials(accessToken: "token-a", userId: "alice"))
        let rest = RESTClient(configuration: .init(baseURL: try #require(URL(string: "http://127.0.0.1:9")), tokenProvider: tokens))
        let queue = MutationQueue(
            configuration: .init(
                directory: folder.url, tokenProvider: tokens, rest: rest, clock: ManualClock(), sleeper: RecordingSleeper(),
                logger: AppLifeTests.quiet))
        let change = QueuedRequest.rest(method: .post, path: "/disputes", headerFields: [:], body: Data("{}".utf8))
        tokens.holdNextRead()
        let enqueue = Task { try await queue.enqueue(change, name: "FileDispute", owner: "alice") }
        try await waitUntil("the queue waiting on who is signed in") { tokens.isHolding }
        await queue.endSession(of: "alice", keepingQueue: false)  // the logout, discarding her queue
        tokens.release()
        await #expect(throws: MutationQueueError.sessionChanged) { try await enqueue.value }
        #expect(!FileManager.default.fileExists(atPath: queue.fileURL(for: "alice").path), "a queue file outlived the logout")
        #expect(await queue.pending().isEmpty, "a change outlived the logout that discarded its queue")
        // The positive control: with no logout meanwhile, the same change is kept.
        #expect(try await queue.enqueue(change, name: "FileDispute", owner: "alice").name == "FileDispute")
        #expect(await queue.pending().count == 1)
    }

    /// An import of two chunks, Bob signing in after each read of the credentials in turn: no chunk of Alice's
    /// address book is ever queued (nor recorded) for Bob.
    @Test func anImportsLaterChunksAreNeverFiledForTheNextUser() async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let alice = try await fixture.credentials()
            let device = ContactsKitAgainstBackendTests.Device(
                baseURL: fixture.backend.baseURL, directory: folder.url, credentials: alice, importChunkSize: 2)
            #expect(await device.contacts.syncNow().isComplete)
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let drafts = (0..<5).map { ContactDraft(deviceId: "ab-\($0)", displayName: "Imported \($0)") }
            let sweep = try await OwnerBindingTests.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent }, reset: {},
                misplaced: { await OwnerBindingTests.queued(of: bob, in: device.queue, tokens: device.tokens, back: alice) }
            ) {
                _ = try? await device.contacts.importDeviceContacts(drafts)
                return false
            }
            #expect(sweep.switchesInside >= 6, "the switch landed inside the import's three chunks \(sweep.switchesInside) times")
            #expect(sweep.leaks.isEmpty, "Alice's import in Bob's queue: \(sweep.leaks)")
        }
    }
}
