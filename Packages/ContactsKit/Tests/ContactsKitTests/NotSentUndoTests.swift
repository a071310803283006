import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import ContactsKit

/// Undoing a change as never sent is decided in the undo's own transaction: a change marked queued since, or recorded
/// again by a call still on its way to the queue, is left as it is (REQ OFF-21).
@Suite(.timeLimit(.minutes(10))) struct NotSentUndoTests {
    @Test func aChangeIsUndoneAsNeverSentOnlyWhileUnqueuedAndNotRecordedAgain() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        let lease = store.lease(for: "u1")
        try store.record(.renameCircle(id: "circle-1", name: "Queued"), key: "queued", lease: lease)
        try store.record(.renameCircle(id: "circle-1", name: "Recorded again"), key: "recorded", lease: lease)
        try store.markQueued(key: "queued", mutationId: 1, lease: lease)

        #expect(try !store.undo(key: "queued", as: .notSent, server: .init(), lease: lease), "marked queued: on its way")
        #expect(
            try !store.undo(key: "recorded", as: .notSent, server: .init(), lease: lease) { true },
            "a call is recording it again")
        #expect(try store.pendingChanges(userId: "u1").map(\.key) == ["queued", "recorded"])

        #expect(try store.undo(key: "recorded", as: .notSent, server: .init(), lease: lease) { false })
        #expect(try store.pendingChanges(userId: "u1").map(\.key) == ["queued"])
        #expect(try store.undo(key: "queued", as: .refused, server: .init(), lease: lease), "a refusal undoes a queued change")
        #expect(try store.pendingChanges(userId: "u1").isEmpty)
    }
}
