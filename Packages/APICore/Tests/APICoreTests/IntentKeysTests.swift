import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore

/// Two calls for one intent share its key: one whose session ended never forgets the key the other holds, and no
/// call is handed a key that is no longer on disk (a retry after "outcome unknown" must send the key that was sent);
/// a key an earlier process kept survives a user switch. One test at a time: a relaunch forgets, process-wide, which
/// keys were handed out.
@Suite(.serialized, .timeLimit(.minutes(10))) struct IntentKeysTests {
    let folder: TemporaryDirectory
    let keys: IntentKeys
    let intent = "payment|100|1250|Rent"

    init() throws {
        folder = try TemporaryDirectory()
        keys = IntentKeys(directory: folder.url.appendingPathComponent("intents"))
    }

    @Test func aCallWhoseSessionEndedNeverForgetsTheKeyAnotherCallHolds() async throws {
        let keys = self.keys
        let intent = self.intent
        let other = Locked<String?>(nil)
        // The first call makes the key; before its second look answers "signed out", a second call for the same
        // intent (a double tap) is handed the same key and sends it.
        let first = try await keys.key(for: intent, user: "alice") {
            let second = try? await keys.key(for: intent, user: "alice") { "alice" }
            other.withLock { $0 = second ?? nil }
            return nil
        }
        #expect(first == nil, "the first call's session ended")
        let held = try #require(other.withLock { $0 }, "the second call got no key")
        #expect(keys.isUnresolved(intent, user: "alice"), "the key the second call sent was forgotten")
        let again = try await keys.key(for: intent, user: "alice") { "alice" }
        #expect(again == held, "asked again after an unknown outcome, the same payment would go with a new key")
    }

    @Test func aKeyForgottenBeforeItIsHandedOutIsNeverReturned() async throws {
        let keys = self.keys
        let intent = self.intent
        let looks = Locked(0)
        // Another call for the intent holds its key; between this call's read of it and its hand-out, that call's
        // answer comes and it settles the key.
        let theOthers = try #require(try await keys.key(for: intent, user: "alice") { "alice" })
        let key = try #require(
            try await keys.key(for: intent, user: "alice") {
                if looks.withLock({ look in
                    look += 1
                    return look == 1
                }) {
                    try? keys.settle(intent, key: theOthers, user: "alice")
                }
                return "alice"
            })
        #expect(keys.isUnresolved(intent, user: "alice"), "the key handed out is not on disk")
        let again = try await keys.key(for: intent, user: "alice") { "alice" }
        #expect(again == key, "a retry would send another key than the one this call sent")
        #expect(key != theOthers, "the settled key was handed out again")
    }

    @Test func anAnswerToAnOlderAttemptNeverSettlesANewerOne() async throws {
        // A sends the payment with the first key; a double tap's answer settles it; the same payment asked again is a
        // new attempt with a second key; then A's own answer comes, late, for the first key.
        let first = try #require(try await keys.key(for: intent, user: "alice") { "alice" })
        try keys.settle(intent, key: first, user: "alice")
        let second = try #require(try await keys.key(for: intent, user: "alice") { "alice" })
        try keys.settle(intent, key: first, user: "alice")
        #expect(keys.isUnresolved(intent, user: "alice"), "the second attempt's key went with the first one's answer")
        let again = try await keys.key(for: intent, user: "alice") { "alice" }
        #expect(again == second, "the second attempt's retry would go with a new key: a second charge")
    }

    @Test func aKeyKeptByAnEarlierProcessSurvivesAnotherUsersSignIn() async throws {
        // An earlier process sent the payment with this key, and its answer never came.
        let earlier = try #require(try await keys.key(for: intent, user: "alice") { "alice" })
        IntentKeys.forgetHandedOutKeys()
        // Relaunched, Alice asks again; Bob signs in before the key is handed out.
        #expect(try await keys.key(for: intent, user: "alice") { "bob" } == nil)
        #expect(keys.isUnresolved(intent, user: "alice"), "the unknown outcome's key was forgotten")
        let again = try await keys.key(for: intent, user: "alice") { "alice" }
        #expect(again == earlier, "Alice's retry would go with a new key: a second charge")
    }
}
