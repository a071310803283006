import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import AccountsKit
import CacheKit
import CacheKitTesting
import ChatHistoryKit
import Foundation
import ReferenceBackend
import Testing

// The summary's fetch is the kit's own (a stale profile's refresh and a refused circle change's undo both
// start it in the background): it is called here directly.
@testable import ContactsKit

/// Every request a kit makes for a user is sent with that user's token or not at all (REQ SEC-2), attacked at
/// every moment: Alice starts an operation and Bob signs in after the `k`th read of who is signed in, for each
/// `k` up to the last read the operation makes. Whatever `k`, no request of Alice's operation leaves with Bob's
/// token (he would be charged, or his data fetched for her).
/// Each operation is one call site binding its requests to their owner (`request.owner`); each has a mutant.
@Suite(.timeLimit(.minutes(10))) struct OwnerBindingTests {
    let kit = ContactsKitAgainstBackendTests()

    /// What a sweep saw: how many switches cut one of Alice's operations (the positive control: at least one
    /// must, or the sweep attacked nothing), and the requests that left with Bob's token, by `k`.
    struct Sweep {
        var switchesInside = 0
        var leaks: [String] = []
    }

    /// Runs `operation` as Alice once per `k`, Bob signing in after `k` reads of the credentials, until a `k`
    /// past the operation's last read. `operation` returns whether it ran to its end as one user: a sync whose
    /// owner read came after the switch is Bob's own run and may send his token; any other, cut by the switch,
    /// is Alice's (an operation whose first read fixes its owner returns `false`: `k` starts after that read).
    /// `reset` puts the device back between runs; `sent` is every request so far (path and token).
    /// `misplaced` names what the run left in Bob's keeping (his queue), read after each `k`.
    static func sweep(
        tokens: StaticTokenProvider, alice: Credentials, bob: Credentials, sent: () -> [HookTransport.Sent],
        reset: () async throws -> Void, misplaced: () async -> [String] = { [] }, _ operation: () async -> Bool
    ) async throws -> Sweep {
        var result = Sweep()
        for k in 1...200 {
            tokens.set(alice)
            try await reset()
            let before = sent().count
            tokens.set(bob, afterCalls: k)
            let wholeRun = await operation()
            let switched = !tokens.hasPendingSwitch
            tokens.set(alice)
            result.leaks += await misplaced().map { "k=\(k): \($0)" }
            let tokensSent = sent().dropFirst(before).map(\.token)
            guard !wholeRun else {
                // A run that completed after the switch must be Bob's own from its first request.
                if switched, tokensSent.contains(alice.accessToken), tokensSent.contains(bob.accessToken) {
                    result.leaks.append("k=\(k): a completed run sent with both users' tokens")
                }
                if switched { continue } else { return result }
            }
            for request in sent().dropFirst(before) where request.token == bob.accessToken {
                result.leaks.append("k=\(k): \(request.path)?\(request.query ?? "")")
            }
            guard switched else { return result }
            result.switchesInside += 1
        }
        Issue.record("the operation still read the credentials after 200 reads")
        return result
    }

    @Test func aContactsSyncSendsNothingWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let store = device.contacts.store
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent },
                reset: { try await store.clearAll() }
            ) { await device.contacts.syncNow().isComplete }
            #expect(sweep.switchesInside >= 3, "the switch landed inside the sync \(sweep.switchesInside) times")
            #expect(sweep.leaks.isEmpty, "sent with Bob's token in Alice's sync: \(sweep.leaks)")
        }
    }

    @Test func aRefetchOnAPushSendsNothingWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent }, reset: {}
            ) {
                try? await device.contacts.invalidate(contactIds: ["c1", "c2"])
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "sent with Bob's token in Alice's refetch: \(sweep.leaks)")
        }
    }

    /// The summary's fetch reads the token once, after its caller took the user from the lease: Bob signed in
    /// between the two, Alice's summary is not fetched with his token (nor stored as hers).
    @Test func theSummaryIsNeverFetchedWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            device.tokens.set(bob)
            #expect(await device.contacts.fetchSummary(for: alice.userId) == nil)
            #expect(device.hook.sent.isEmpty, "Alice's summary fetched with Bob's token: \(device.hook.sent.map(\.path))")
            #expect(await device.contacts.fetchSummary(for: bob.userId) != nil, "positive control: Bob's own")
            #expect(device.hook.sent.map(\.token) == [bob.accessToken])
        }
    }

    @Test func aFullPhotoIsNeverFetchedWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let zoe = try #require(try await device.contacts.contact(id: "c0").value)
            #expect(zoe.photoPath != nil)
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent }, reset: {}
            ) {
                _ = try? await device.contacts.fullPhoto(of: zoe)
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "sent with Bob's token for Alice's photo: \(sweep.leaks)")
        }
    }

    /// A purchase is the costliest leak: sent with Bob's token under Alice's key, it would charge Bob.
    @Test func aPurchaseIsNeverSentWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent }, reset: {}
            ) {
                try? await device.contacts.subscribePremium()
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "Alice's purchase sent with Bob's token: \(sweep.leaks)")
        }
    }

    @Test func aChatSyncSendsNothingWithTheNextUsersToken() async throws {
        try await ChatHistoryKitAgainstBackendTests.withHookedDevice(syncPageSize: 2) { (_, alice, bob, device, hook) async throws in
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { hook.sent },
                reset: { try await device.chat.store.clearAll() }
            ) { await device.chat.sync.run().isComplete }
            #expect(sweep.switchesInside >= 3, "the switch landed inside the sync \(sweep.switchesInside) times")
            #expect(sweep.leaks.isEmpty, "sent with Bob's token in Alice's chat sync: \(sweep.leaks)")
        }
    }
    /// Alice's payment, its key kept for her, never leaves with Bob's token (it would charge Bob's session).
    @Test func aPaymentIsNeverSentWithTheNextUsersToken() async throws {
        try await withBackend(5) { fixture in
            let app = try await AccountsKitAgainstBackendTests.App(fixture)
            let alice = try await fixture.credentials()
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let sweep = try await Self.sweep(
                tokens: app.tokens, alice: alice, bob: bob, sent: { app.hook.sent }, reset: {}
            ) {
                _ = try? await app.accounts.makePayment(accountId: "100", amount: 1)
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "Alice's payment sent with Bob's token: \(sweep.leaks)")
        }
    }

    /// A change Alice makes is recorded in her file and queued in her queue, never in Bob's, whatever moment
    /// he signs in (queued in his, it would leave with his token at the next replay).
    @Test func aContactsChangeIsNeverQueuedForTheNextUser() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            var renames = 0
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { device.hook.sent }, reset: {},
                misplaced: { await Self.queued(of: bob, in: device.queue, tokens: device.tokens, back: alice) }
            ) {
                renames += 1
                _ = try? await device.contacts.rename(contactId: "c1", to: "Alice's \(renames)")
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "Alice's change in Bob's queue: \(sweep.leaks)")
        }
    }

    @Test func aChatQuestionIsNeverQueuedForTheNextUser() async throws {
        try await ChatHistoryKitAgainstBackendTests.withHookedDevice { (_, alice, bob, device, hook) async throws in
            let sweep = try await Self.sweep(
                tokens: device.tokens, alice: alice, bob: bob, sent: { hook.sent }, reset: {},
                misplaced: { await Self.queued(of: bob, in: device.queue, tokens: device.tokens, back: alice) }
            ) {
                _ = try? await device.chat.ask("Will it rain?")
                return false
            }
            #expect(sweep.switchesInside >= 1)
            #expect(sweep.leaks.isEmpty, "Alice's question in Bob's queue: \(sweep.leaks)")
        }
    }

    /// What `user`'s queue holds (read as `user`), then `back` signed in again.
    static func queued(of user: Credentials, in queue: MutationQueue, tokens: StaticTokenProvider, back: Credentials) async -> [String] {
        tokens.set(user)
        let pending = await queue.pending().map { "\($0.name) queued for \(user.userId)" }
        tokens.set(back)
        return pending
    }
}
