import APICore
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import Logging
import Testing

@testable import ContactsKit

/// A purchase's idempotency key is never left on disk for a session that ended while the key was being kept: an
/// account deletion whose eraser ran after the purchase read its user, or another user's sign-in.
@Suite(.timeLimit(.minutes(10))) struct PurchaseKeyAfterTheEndTests {
    let folder: TemporaryDirectory
    let transport = RecordingTransport()
    let tokens = StaticTokenProvider(Credentials(accessToken: "alice-token", userId: "alice"))
    let contacts: ContactsClient

    init() throws {
        folder = try TemporaryDirectory()
        var logger = Logger(label: "purchase-key-test")
        logger.logLevel = .critical
        let environment = CacheEnvironment(
            clock: ManualClock(), logger: logger, cachesDirectory: folder.url.appendingPathComponent("caches"),
            dataDirectory: folder.url.appendingPathComponent("data"))
        let base = try #require(URL(string: "http://contacts.test"))
        let rest = RESTClient(
            configuration: .init(baseURL: base, transport: transport, environment: environment, tokenProvider: tokens, retry: .none))
        contacts = ContactsClient(
            rest: rest, queue: nil, environment: environment,
            images: ImageCache(configuration: .init(directory: folder.url.appendingPathComponent("images"))))
    }

    /// The files of the purchases' keys, every user's.
    var keyFiles: [URL] { folder.files().filter { $0.path.contains("/intents/contacts/") } }

    @Test func aDeletionWhoseEraserRanAfterThePurchaseReadItsUserLeavesNoKey() async throws {
        let contacts = self.contacts
        tokens.beforeAnswering { try? contacts.erase(userId: "alice") }
        tokens.set(nil, afterCalls: 1)
        await #expect(throws: ContactsError.api(.sessionChanged)) { try await contacts.subscribePremium() }
        #expect(keyFiles.isEmpty, "the deleted user's key outlived the deletion: \(keyFiles.map(\.lastPathComponent))")
        #expect(transport.requests.isEmpty, "nothing is sent for an ended session")
    }

    @Test func anotherUsersSignInKeepsTheKeyOfAnAttemptWhoseOutcomeIsUnknown() async throws {
        let earlier = try #require(try await contacts.intents.key(for: ContactsClient.subscribeIntent, user: "alice") { "alice" })
        tokens.set(Credentials(accessToken: "bob-token", userId: "bob"), afterCalls: 1)
        await #expect(throws: ContactsError.api(.sessionChanged)) { try await contacts.subscribePremium() }
        let again = try await contacts.intents.key(for: ContactsClient.subscribeIntent, user: "alice") { "alice" }
        #expect(again == earlier, "the unknown outcome's key was forgotten")
        #expect(transport.requests.isEmpty)
    }
}
