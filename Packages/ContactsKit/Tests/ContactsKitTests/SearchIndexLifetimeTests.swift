import CacheKit
import CacheKitTesting
import ContactsKitTesting
import Foundation
import Testing

@testable import ContactsKit

/// A user's search index never outlives a clearing of the user's files: one built while a logout cleared them is
/// dropped, not kept with the user's contacts in memory until the next sign-in.
@Suite(.timeLimit(.minutes(10))) struct SearchIndexLifetimeTests {
    @Test func anIndexBuiltWhileTheFilesWereClearedIsNotKept() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        try ContactsFixtures.writeVersion1(at: store.fileURL(for: "u1"))
        let lease = store.lease(for: "u1")
        let built = SearchIndex(name: "contacts.search")
        built.rebuild([SearchDocument(id: "c1", sortKey: "Zoë", fields: [.name("Zoë Martin")])])
        try await store.clearAll()
        let kept = store.keep(built, builtUnder: lease)
        #expect(store.builtIndex(userId: "u1") == nil, "no index of a cleared user is kept")
        #expect(kept.count == 0 && built.search("zoe").ids.isEmpty, "and the one built holds nothing")
    }

    @Test func positiveControlAnIndexBuiltWithNoClearingIsKept() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        let built = SearchIndex(name: "contacts.search")
        built.rebuild([SearchDocument(id: "c1", sortKey: "Zoë", fields: [.name("Zoë Martin")])])
        let kept = store.keep(built, builtUnder: store.lease(for: "u1"))
        #expect(kept === built && store.builtIndex(userId: "u1") === built && built.search("zoe").ids == ["c1"])
    }
}
