import CacheKit
import CacheKitTesting
import ContactsKit
import ContactsKitTesting
import Foundation
import Testing

/// The address book's file: every earlier version opens with its data, search works from what it holds,
/// users never share a file, and erasing leaves nothing.
@Suite(.timeLimit(.minutes(10))) struct ContactsStoreTests {
    @Test func aVersion1FileOpensWithItsContactsCirclesScoreAndSyncAndIsSearchable() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        try ContactsFixtures.writeVersion1(at: store.fileURL(for: "u1"))
        let page = try store.contacts(userId: "u1")
        #expect(page.total == 2 && page.contacts.map(\.displayName) == ["Ana Pérez", "Zoë Martin"], "in name order, accents aside")
        #expect(try store.circles(userId: "u1").map(\.name) == ["Family"] && store.score(userId: "u1")?.history.count == 2)
        let checkpoint = try #require(try store.checkpoint(userId: "u1"))
        #expect(checkpoint.changesToken == "7" && !checkpoint.isInProgress)
        #expect(try store.searchIndex(userId: "u1").search("zoe").ids == ["c1"], "the index is built from the file")
        #expect(try store.searchIndex(userId: "u1").search("612 345").ids == ["c2"])
    }

    @Test func aVersion2FileOpensWithItsKeptChangeStillPending() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        try ContactsFixtures.writeVersion2(at: store.fileURL(for: "u1"))
        let zoe = try #require(try store.contact(userId: "u1", id: "c1"))
        #expect(zoe.displayName == "Zoë M." && zoe.hasPendingChange, "the kept rename, still waiting for the server")
        #expect(try store.contact(userId: "u1", id: "c2")?.hasPendingChange == false)
        #expect(try store.changeState(userId: "u1", id: "rename-c1") == .pending)
        #expect(try store.changeState(userId: "u1", id: "unknown") == nil)
    }

    @Test func aFolderLeftInTheCachesByAnEarlierVersionIsMovedToTheDataDirectory() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let legacy = folder.url.appendingPathComponent("caches/contacts")
        try ContactsFixtures.writeVersion2(at: ContactsStore(directory: legacy).fileURL(for: "u1"))
        // The support folder exists already, open to others: only the store's own narrowing makes it the
        // owner's (a folder the store creates would be 0700 under the usual umask whatever the store did).
        let support = folder.url.appendingPathComponent("support")
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let store = ContactsStore(directory: support.appendingPathComponent("contacts"), movingFrom: legacy)
        #expect(try store.contact(userId: "u1", id: "c1")?.displayName == "Zoë M.", "the file and its kept change moved")
        #expect(!FileManager.default.fileExists(atPath: legacy.path), "nothing left where a logout would not look")
        let mode = try FileManager.default.attributesOfItem(atPath: support.path)[.posixPermissions] as? Int
        #expect(mode == 0o700, "the support folder is \(mode.map { String($0, radix: 8) } ?? "?")")
        // A second folder in the caches, beside one already moved, is deleted.
        try ContactsFixtures.writeVersion1(at: ContactsStore(directory: legacy).fileURL(for: "u2"))
        _ = ContactsStore(directory: folder.url.appendingPathComponent("support/contacts"), movingFrom: legacy)
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
    }

    @Test func usersNeverShareAFileAndErasingOneLeavesNoFileOfIt() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = ContactsStore(directory: folder.url)
        try ContactsFixtures.writeVersion1(at: store.fileURL(for: "u1"))
        #expect(try store.contacts(userId: "u2").total == 0 && store.searchIndex(userId: "u2").search("zoe").ids.isEmpty)
        #expect(store.fileURL(for: "u1") != store.fileURL(for: "u2"))
        #expect(!store.fileURL(for: "u1").lastPathComponent.contains("u1"), "a file name says nothing of whose it is")
        try store.erase(userId: "u1")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("contacts-") }
        #expect(left.allSatisfy { !$0.hasPrefix(store.fileURL(for: "u1").lastPathComponent) })
        try store.erase(userId: "u2")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "no file, not even the key naming the files")
        #expect(try store.contacts(userId: "u1").total == 0, "a new, empty file after erasing")
        try await store.clearAll()
        #expect(!FileManager.default.fileExists(atPath: folder.url.path), "logout deletes every file")
    }
}
