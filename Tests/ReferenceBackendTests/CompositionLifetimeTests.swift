import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CacheKitTesting
import CatalogKit
import ChatHistoryKit
import ContactsKit
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// A composition an app (or a test suite) drops is freed, with everything it built: nothing it made holds
/// another part of it for ever (the container and the GraphQL client, the session and its erasers, the cache
/// manager and its participants).
@Suite(.timeLimit(.minutes(10))) struct CompositionLifetimeTests {
    /// A weak reference by name.
    final class Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    @Test func aDroppedCompositionIsFreedWithEveryPartItBuilt() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "composition-lifetime")
            logger.logLevel = .critical
            var parts: [String: Weak] = [:]
            do {
                let app = try DemoComposition(
                    baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"), logger: logger)
                try await app.signIn()
                _ = try await app.accounts.balance(accountId: "100")
                _ = try await app.catalog.page()
                await app.contacts.syncNow()
                try await app.favorites.setFavorite("no-such-funnel", true)
                let composition = app.composition
                parts = [
                    "composition": Weak(composition), "session": Weak(composition.session), "container": Weak(composition.container),
                    "graphQL": Weak(composition.graphQL), "rest": Weak(composition.rest), "queue": Weak(composition.queue),
                    "contacts": Weak(composition.contacts), "chat": Weak(composition.chat), "accounts": Weak(composition.accounts),
                    "catalog": Weak(composition.catalog), "unified": Weak(composition.unified), "images": Weak(composition.images),
                    "connectivity": Weak(composition.connectivity),
                ]
            }
            // What a task still running holds goes when it ends; the parts still held after are named.
            try? await waitUntil("every part of the dropped composition freed") {
                parts.filter { $0.value.object != nil }.isEmpty
            }
            #expect(parts.filter { $0.value.object != nil }.keys.sorted() == [])
        }
    }
}
