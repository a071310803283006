import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import ContactsKit

/// An import adds the contacts the device lacks; undone (refused, or never sent), it removes those and no contact the
/// device has from the server (REQ OFF-21).
@Suite(.timeLimit(.minutes(10))) struct ImportUndoTests {
    private func contact(_ id: String, _ name: String) -> Contact {
        Contact(id: id, displayName: name, updatedAt: Date(timeIntervalSince1970: 1_000))
    }

    private func ids(_ store: ContactsStore) throws -> [String] {
        try store.read("u1", else: []) { db in try ContactsStore.contacts(db, offset: 0, limit: 100).contacts.map(\.id).sorted() }
    }

    @Test(arguments: [ContactsChange.State.refused, .notSent]) func anUndoneImportLeavesTheContactsTheServerHas(
        undone: ContactsChange.State
    ) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        let lease = store.lease(for: "u1")
        // Imported before and synced: the server has it.
        try store.storeRefresh(.init(contacts: ["imported-a": contact("imported-a", "Ada")]), keys: [], at: .now, lease: lease)
        try store.record(.importContacts([contact("imported-a", "Ada"), contact("imported-b", "Bo")]), key: "i", lease: lease)
        #expect(try ids(store) == ["imported-a", "imported-b"])

        #expect(try store.undo(key: "i", as: undone, server: .init(), lease: lease))
        #expect(try ids(store) == ["imported-a"], "the undo removed a contact the server has")
    }

    @Test func aContactAnotherKeptImportAddsIsTheirsUntilOneIsSent() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        let lease = store.lease(for: "u1")
        try store.record(.importContacts([contact("imported-a", "Ada")]), key: "first", lease: lease)
        try store.record(.importContacts([contact("imported-a", "Ada"), contact("imported-b", "Bo")]), key: "second", lease: lease)
        // The first refused: the second, still kept, adds the contact again.
        #expect(try store.undo(key: "first", as: .refused, server: .init(), lease: lease))
        #expect(try ids(store) == ["imported-a", "imported-b"])

        // Another pair: the first is sent, so the server has its contact, which the second's undo leaves.
        try store.record(.importContacts([contact("imported-c", "Cy")]), key: "third", lease: lease)
        try store.record(.importContacts([contact("imported-c", "Cy"), contact("imported-d", "Di")]), key: "fourth", lease: lease)
        try store.forgetSent(key: "third", lease: lease)
        #expect(try store.undo(key: "fourth", as: .refused, server: .init(), lease: lease))
        #expect(try ids(store) == ["imported-a", "imported-b", "imported-c"])
    }

    /// A contact the server has, however the device learnt it, is not the import's to remove: a sync page brings it, or a
    /// page says an import that added it was sent.
    @Test func aContactASyncPageBringsIsTheServersAndStaysWhenAnImportIsUndone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        let lease = store.lease(for: "u1")
        let page = { (contacts: [Contact], sent: Set<String>) in
            ContactsSyncPage(
                contacts: contacts, deleted: [], isLast: true, startsFullSync: false,
                queue: QueueSnapshot(keptBefore: sent, stillQueued: []))
        }
        try store.record(.importContacts([contact("imported-a", "Ada"), contact("imported-b", "Bo")]), key: "i", lease: lease)
        try store.store(page([contact("imported-a", "Ada")], []), checkpoint: SyncCheckpoint(mode: .incremental), lease: lease)
        #expect(try store.undo(key: "i", as: .notSent, server: .init(), lease: lease))
        #expect(try ids(store) == ["imported-a"], "the undo removed the contact the page brought")

        try store.record(.importContacts([contact("imported-c", "Cy")]), key: "sent", lease: lease)
        try store.record(.importContacts([contact("imported-c", "Cy"), contact("imported-d", "Di")]), key: "refused", lease: lease)
        try store.store(page([], ["sent"]), checkpoint: SyncCheckpoint(mode: .incremental), lease: lease)
        #expect(try store.undo(key: "refused", as: .refused, server: .init(), lease: lease))
        #expect(try ids(store) == ["imported-a", "imported-c"], "the undo removed what a sent import added")
    }
}
