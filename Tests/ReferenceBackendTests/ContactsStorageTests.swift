import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import MIBCore
import Testing

/// Where the address book lives and what goes with a contact: the user's data in the data directory (not
/// the caches the system may purge), photos in the caches, a deleted contact's thumbnail and enrichment
/// removed with it, statistics that count every byte, and errors a screen can act on.
@Suite(.timeLimit(.minutes(10))) struct ContactsStorageTests {
    let kit = ContactsKitAgainstBackendTests()

    private func files(under url: URL) -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String]) ?? []
    }

    @Test func theAddressBookIsInTheDataDirectoryAndOnlyPhotosInTheCaches() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let zoe = try #require(try await device.contacts.contact(id: "c0").value)
            _ = try await device.contacts.thumbnail(of: zoe)
            let store = device.contacts.store.directory.standardizedFileURL.path
            let caches = device.caches.standardizedFileURL.path
            #expect(!store.hasPrefix(caches + "/"), "the address book is not a cache: \(store)")
            #expect(files(under: device.contacts.store.directory).contains { $0.hasSuffix(".sqlite") })
            #expect(!files(under: device.caches).contains { $0.hasPrefix("contacts") }, "\(files(under: device.caches))")
            #expect(!files(under: device.caches).isEmpty, "positive control: the thumbnail is in the caches")
        }
    }

    @Test func aContactDeletedOnTheServerTakesItsThumbnailAndEnrichmentWithIt() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            let gone = try #require(try await contacts.contact(id: "c1").value)
            let kept = try #require(try await contacts.contact(id: "c2").value)
            for contact in [gone, kept] {
                #expect(try await contacts.thumbnail(of: contact) != nil)
                #expect(try await contacts.enrichment(of: contact.id).value != nil)
            }
            #expect(try await fixture.send(.delete, "/contacts/c1", json: "", token: alice.accessToken).status == 200)
            #expect(await contacts.syncNow().isComplete)
            device.network.isOffline = true
            #expect(try await contacts.enrichment(of: "c1").label == "Offline", "its enrichment went with it")
            await #expect(throws: ContactsError.self) { try await contacts.thumbnail(of: gone) }
            #expect(try await contacts.enrichment(of: "c2").value != nil, "another contact's stays")
            #expect(try await contacts.thumbnail(of: kept) != nil)
        }
    }

    @Test func aContactDeletedOnTheDeviceOrItsUsersAccountTakesOnlyThatUsersThumbnails() async throws {
        try await kit.withDevice { (_, alice, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            let gone = try #require(try await contacts.contact(id: "c1").value)
            let kept = try #require(try await contacts.contact(id: "c2").value)
            let gonePath = try #require(gone.photoPath)
            let keptPath = try #require(kept.photoPath)
            let bytes = try #require(try await contacts.thumbnail(of: gone))
            #expect(try await contacts.thumbnail(of: kept) != nil)
            // Another user of the device holds the same paths.
            for path in [gonePath, keptPath] { _ = try await device.images.image(forKey: path, user: "bob") { bytes } }

            device.network.isOffline = true
            try await contacts.deleteContact(id: gone.id)
            #expect(device.images.image(forKey: gonePath, user: alice.userId) == nil, "the deleted contact's thumbnail stayed")
            #expect(device.images.image(forKey: keptPath, user: alice.userId) != nil)
            #expect(device.images.image(forKey: gonePath, user: "bob") != nil, "another user's copy went too")

            try contacts.erase(userId: alice.userId)
            #expect(device.images.image(forKey: keptPath, user: alice.userId) == nil, "account deletion kept a thumbnail")
            #expect(device.images.image(forKey: keptPath, user: "bob") != nil, "account deletion took another user's")
        }
    }

    /// Another user signs in between the moment a load reads who is signed in and the moment its request
    /// takes a token: the request is never sent with the new user's token, and nothing is kept for the first.
    @Test func aUserSwitchMidLoadSendsNothingWithTheNextUsersToken() async throws {
        try await kit.withDevice { (fixture, alice, device) async throws in
            let contacts = device.contacts
            #expect(await contacts.syncNow().isComplete)
            let zoe = try #require(try await contacts.contact(id: "c0").value)
            let path = try #require(zoe.photoPath)
            let bob = try await fixture.credentials("bob@example.com", "Password2")
            let before = device.transport.count()

            device.tokens.set(bob, afterCalls: 1)
            await #expect(throws: ContactsError.self) { try await contacts.thumbnail(of: zoe) }
            #expect(device.images.image(forKey: path, user: alice.userId) == nil, "bob's answer kept as alice's thumbnail")

            device.tokens.set(alice)
            device.tokens.set(bob, afterCalls: 2)
            await #expect(throws: ContactsError.self) { try await contacts.enrichment(of: "c0") }
            #expect(device.transport.count() == before, "a request left with the next user's token")
            // Alice again, offline: nothing was kept for her.
            device.tokens.set(alice)
            device.network.isOffline = true
            #expect(try await contacts.enrichment(of: "c0").value == nil, "bob's enrichment kept in alice's file")
        }
    }

    @Test func statisticsCountEveryByteOfTheFiles() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            let usage = try #require(try await device.contacts.store.statistics().first?.usage)
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: device.contacts.store.directory.path).reduce(0) {
                total, name in
                let path = device.contacts.store.directory.appendingPathComponent(name).path
                return total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            }
            #expect(usage.count == 120 && usage.bytes == onDisk && onDisk > 0)
        }
    }

    @Test func photosAndEnrichmentSayWhatIsMissingRatherThanOffline() async throws {
        try await kit.withDevice { (_, _, device) async throws in
            #expect(await device.contacts.syncNow().isComplete)
            var missing = try #require(try await device.contacts.contact(id: "c0").value)
            missing.photoPath = "/avatars/c0.jpg"
            await #expect(throws: ContactsError.photoMissing) { try await device.contacts.thumbnail(of: missing) }
            await #expect(throws: ContactsError.photoMissing) { try await device.contacts.fullPhoto(of: missing) }
            await #expect(throws: ContactsError.notFound) { try await device.contacts.enrichment(of: "c404") }
            let zoe = try #require(try await device.contacts.contact(id: "c0").value)
            let thumbnail = try #require(try await device.contacts.thumbnail(of: zoe))
            let full = try #require(try await device.contacts.fullPhoto(of: zoe))
            #expect(full.count > thumbnail.count * 4, "the full-size photo is larger: \(full.count) against \(thumbnail.count)")
            device.network.isOffline = true
            let offline = await #expect(throws: ContactsError.self) { try await device.contacts.fullPhoto(of: zoe) }
            #expect(offline != nil && offline != .photoMissing, "offline is not a missing photo: \(String(describing: offline))")
        }
    }
}
