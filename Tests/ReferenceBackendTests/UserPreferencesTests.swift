import CacheKit
import CacheKitTesting
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// Each user's preferences are their own file, erased with their account; the app's own settings (the
/// telemetry choice) and another user's preferences outlive any account's deletion.
@Suite(.timeLimit(.minutes(10))) struct UserPreferencesTests {
    @Test func aDeletedAccountTakesItsPreferencesOnly() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "user-preferences")
            logger.logLevel = .critical
            let caches = directory.url.appendingPathComponent("caches")
            let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: logger)
            let bob = try await app.signIn(email: "bob@example.com", password: "Password2")
            try app.composition.preferences(for: bob).set("by date", forKey: "sort")
            _ = await app.logOut()
            let alice = try await app.signIn()
            try app.composition.preferences(for: alice).set("by name", forKey: "sort")
            try app.composition.setTelemetryOptedOut(true)
            #expect(app.composition.preferences(for: bob).value(forKey: "sort", as: String.self) == "by date", "users share a file")

            #expect(await app.session.deleteAccountData().isComplete)
            let relaunched = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: logger)
            #expect(relaunched.composition.preferences(for: alice).value(forKey: "sort", as: String.self) == nil)
            #expect(relaunched.composition.preferences(for: bob).value(forKey: "sort", as: String.self) == "by date")
            #expect(relaunched.composition.appPreferences.value(forKey: Composition.telemetryOptOutKey, as: Bool.self) == true)
        }
    }
}
