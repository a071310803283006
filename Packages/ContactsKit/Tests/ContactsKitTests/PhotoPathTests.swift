import APICore
import Foundation
import Testing

@testable import ContactsKit

/// A contact's photo address comes from the server, so the kit loads it only as a path on the app's own
/// server (security review two, finding 1): an absolute URL, or a `//host` one, is refused before any request.
@Suite(.timeLimit(.minutes(10))) struct PhotoPathTests {
    static func contact(_ photoPath: String?) -> Contact {
        Contact(id: "c1", displayName: "Ada", photoPath: photoPath, updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: ["https://evil.example/p.png", "http://evil.example/p.png", "//evil.example/p.png", "avatars/c1.png"])
    func anAddressOffTheServerIsRefused(_ path: String) {
        #expect(throws: ContactsError.api(.invalidRequest(reason: "The contact's photo is not on the app's server."))) {
            try ContactsClient.photoPath(of: Self.contact(path))
        }
    }

    @Test func aPathOnTheServerIsLoadedAndNoPhotoIsNone() throws {
        #expect(try ContactsClient.photoPath(of: Self.contact("/avatars/c1.png")) == "/avatars/c1.png")
        #expect(try ContactsClient.photoPath(of: Self.contact(nil)) == nil)
    }
}
