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
            // Named by a keyed hash: a guessed user id finds no file.
            let secret = InstallSecret(directory: userPreferencesDirectory)
            let store = PreferencesStore(url: secret.userFile(userId, suffix: ".json", in: userPreferencesDirectory))
            stores[userId] = store
            return store
        }
    }

    /// Account deletion: `userId`'s preference file goes, or, signed out (`nil`), every user's; the app's
    /// own settings stay.
    /// A store handed out before is erased too: a screen that still holds it writes nothing more, so no file named by
    /// the erased key comes back.
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
        try userPreferences.withLock { $0.removeValue(forKey: userId) }?.erase()
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
