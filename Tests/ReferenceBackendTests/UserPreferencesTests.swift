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
    /// An app over a new folder against the reference backend, and how to launch another over the same folder.
    func withApp(_ body: (DemoComposition, () throws -> DemoComposition) async throws -> Void) async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "user-preferences")
            logger.logLevel = .critical
            let caches = directory.url.appendingPathComponent("caches")
            let launch = { try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: logger) }
            try await body(try launch(), launch)
        }
    }

    @Test func aDeletedAccountTakesItsPreferencesOnly() async throws {
        try await withApp { app, relaunch in
            let bob = try await app.signIn(email: "bob@example.com", password: "Password2")
            try app.composition.preferences(for: bob).set("by date", forKey: "sort")
            _ = await app.logOut()
            let alice = try await app.signIn()
            try app.composition.preferences(for: alice).set("by name", forKey: "sort")
            try app.composition.setTelemetryOptedOut(true)
            #expect(app.composition.preferences(for: bob).value(forKey: "sort", as: String.self) == "by date", "users share a file")

            // A screen that still holds the deleted user's store writes nothing more: no file of theirs comes back.
            let held = app.composition.preferences(for: alice)
            #expect(await app.session.deleteAccountData().isComplete)
            #expect(throws: PreferencesStore.ErasedError.self) { try held.set("after the deletion", forKey: "sort") }
            // So does a task that asks for them after the deletion.
            #expect(throws: PreferencesStore.ErasedError.self) {
                try app.composition.preferences(for: alice).set("asked for after the deletion", forKey: "sort")
            }
            let relaunched = try relaunch()
            #expect(relaunched.composition.preferences(for: alice).value(forKey: "sort", as: String.self) == nil)
            #expect(relaunched.composition.preferences(for: bob).value(forKey: "sort", as: String.self) == "by date")
            #expect(relaunched.composition.appPreferences.value(forKey: Composition.telemetryOptOutKey, as: Bool.self) == true)
        }
    }

    /// The folder's key goes with its last file (an account's deletion), but a store handed out before, whose user had
    /// written nothing yet, names its file by that key: its first write puts the key back, so a relaunch finds it.
    @Test func aStoreWhoseKeyADeletionTookWritesItBack() async throws {
        try await withApp { app, relaunch in
            let bob = try await app.signIn(email: "bob@example.com", password: "Password2")
            let bobs = app.composition.preferences(for: bob)
            #expect(bobs.value(forKey: "sort", as: String.self) == nil)
            _ = await app.logOut()
            let alice = try await app.signIn()
            try app.composition.preferences(for: alice).set("by name", forKey: "sort")
            #expect(await app.session.deleteAccountData().isComplete)
            try bobs.set("by date", forKey: "sort")
            let relaunched = try relaunch()
            #expect(relaunched.composition.preferences(for: bob).value(forKey: "sort", as: String.self) == "by date")
        }
    }

    /// A user's preference file is named by a keyed hash (a guessed id finds no file); one named the old way is kept.
    @Test func aUsersPreferenceFileIsNamedByAKeyedHashAndAnOldOneIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let support = directory.url.appendingPathComponent("support")
        let folder = support.appendingPathComponent("preferences")
        try ProtectedFiles.createDirectory(folder)
        let old = InstallSecret.legacyUserFile("u-old", suffix: ".json", in: folder)
        try PreferencesStore(url: old).set("by date", forKey: "sort")
        let app = try Composition(
            baseURL: URL(string: "http://127.0.0.1:9")!, cachesDirectory: directory.url.appendingPathComponent("caches"),
            supportDirectory: support, logger: Logger(label: "user-preferences"))
        #expect(app.preferences(for: "u-old").value(forKey: "sort", as: String.self) == "by date", "the old file was lost")
        try app.preferences(for: "u1").set("by name", forKey: "sort")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains(old.lastPathComponent) && !names.contains(StableHash.hex("u1") + ".json"), "\(names)")
        #expect(names.filter { $0.hasSuffix(".json") }.count == 2)
    }
}
