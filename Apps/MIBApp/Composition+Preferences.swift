import APICore
import CacheKit
import Foundation

extension Composition {
    /// `userId`'s small settings (what `UserDefaults` holds in an app: "onboarding done", a sort order), in a
    /// file of their own, erased with their account; a screen asks for the signed-in user's. The app's own
    /// settings are ``appPreferences`` (settings kept in that file by an earlier version stay there).
    ///
    /// ```swift
    /// let user = try await app.signIn(email: email, password: password)
    /// try app.preferences(for: user).set(true, forKey: "onboarding.done")
    /// ```
    public func preferences(for userId: String) -> PreferencesStore {
        userPreferences.withLock { stores in
            if let store = stores[userId] { return store }
            // Named by a keyed hash: a guessed user id finds no file. Each write first puts the key that names it back,
            // if another account's deletion took it meanwhile (the folder held nothing else).
            let secret = InstallSecret(directory: userPreferencesDirectory)
            let store = PreferencesStore(url: secret.userFile(userId, suffix: ".json", in: userPreferencesDirectory)) {
                _ = secret.fileNameHash(userId)
            }
            stores[userId] = store
            return store
        }
    }

    /// Account deletion: `userId`'s preference file goes, or, signed out (`nil`), every user's; the app's
    /// own settings stay.
    /// A store handed out before is erased too, and a user's stays erased: a screen that still holds it, or a task
    /// that asks for it after the deletion, writes nothing, so no file of the user comes back.
    func erasePreferences(of userId: String?) throws {
        guard let userId else {
            let opened = userPreferences.withLock { stores in
                defer { stores.removeAll() }
                return Array(stores.values)
            }
            for store in opened { try store.erase() }
            if FileManager.default.fileExists(atPath: userPreferencesDirectory.path) {
                try FileManager.default.removeItem(at: userPreferencesDirectory)
            }
            return
        }
        // The erased store stays, for this composition's life: a task that ends after the deletion and asks for the
        // user's preferences gets it, and writes nothing.
        let erased = userPreferences.withLock { stores in
            let store =
                stores[userId] ?? PreferencesStore(url: InstallSecret.legacyUserFile(userId, suffix: ".json", in: userPreferencesDirectory))
            stores[userId] = store
            return store
        }
        try erased.erase()
        // Nothing made to erase nothing: a user who never had preferences leaves the folder as it is.
        guard FileManager.default.fileExists(atPath: userPreferencesDirectory.path) else { return }
        try InstallSecret(directory: userPreferencesDirectory).eraseUserFile(userId, suffix: ".json", in: userPreferencesDirectory)
    }

    /// The preference that keeps the user's telemetry choice.
    public static let telemetryOptOutKey = "telemetry.optedOut"

    /// Records the user's telemetry choice (kept across launches): opted out, no screen, time or funnel
    /// measure is recorded or exported. API error counts carry no personal data and stay.
    public func setTelemetryOptedOut(_ optedOut: Bool) throws {
        try appPreferences.set(optedOut, forKey: Self.telemetryOptOutKey)
        screens.setOptedOut(optedOut)
    }
}
