import Foundation

/// A user's small settings (what `UserDefaults` holds in an app): `Codable` values by key in one
/// JSON file, written atomically (a crash leaves the old file or the new one, never half), erased
/// with the account.
///
/// ```swift
/// let preferences = PreferencesStore(url: support.appending(path: "preferences.json"))
/// try preferences.set(true, forKey: "onboarding.done")
/// let done: Bool? = preferences.value(forKey: "onboarding.done")
/// try preferences.erase()        // account deletion
/// ```
public final class PreferencesStore: Sendable {
    /// The file.
    public let url: URL
    /// The values once read, and whether ``erase()`` ran (nothing is written again).
    private let state = Locked<(values: [String: Data]?, erased: Bool)>((nil, false))

    /// What a write to a store erased with its account throws: nothing is written again, so no file of a deleted
    /// user comes back (a screen that still holds the store, a task that ends after the deletion).
    public struct ErasedError: LocalizedError, Sendable, CustomStringConvertible {
        /// Its log form: "PreferencesStore.ErasedError".
        public var description: String { "PreferencesStore.ErasedError" }
        /// What a screen shows: "These settings were deleted with the account."
        public var errorDescription: String? { "These settings were deleted with the account." }

        /// The error.
        public init() {}
    }

    /// Runs under the store's lock before each write.
    private let willWrite: (@Sendable () -> Void)?

    /// A store over `url` (read on first use; created on first write).
    /// - Parameters:
    ///   - url: the file.
    ///   - willWrite: run before each write, under the store's lock: where `url` is named by an
    ///     ``InstallSecret``, its ``InstallSecret/fileNameHash(_:)``, which writes the folder's key back if a deletion
    ///     took it since, so the file written is found again after a relaunch.
    public init(url: URL, willWrite: (@Sendable () -> Void)? = nil) {
        self.url = url
        self.willWrite = willWrite
    }

    /// The value for `key`, or `nil` when there is none or it is not a `T`.
    public func value<T: Decodable>(forKey key: String, as type: T.Type = T.self) -> T? {
        guard let data = state.withLock({ load(&$0.values)[key] }) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }

    /// Stores `value` under `key` and writes the file.
    /// - Throws: ``ErasedError`` once the store was erased; else when the value cannot be encoded or the file cannot
    ///   be written (nothing changes).
    public func set<T: Encodable>(_ value: T, forKey key: String) throws {
        let encoded = try JSONEncoder().encode(value)
        try state.withLock { state in
            guard !state.erased else { throw ErasedError() }
            var updated = load(&state.values)
            updated[key] = encoded
            try write(updated)
            state.values = updated
        }
    }

    /// Removes the value for `key`.
    public func removeValue(forKey key: String) throws {
        try state.withLock { state in
            var updated = load(&state.values)
            guard updated.removeValue(forKey: key) != nil else { return }
            try write(updated)
            state.values = updated
        }
    }

    /// Deletes every value and the file (account deletion), and what a write killed half way left; the store writes
    /// nothing again (``set(_:forKey:)`` throws ``ErasedError``).
    public func erase() throws {
        try state.withLock { state in
            state = ([:], true)
            ProtectedFiles.removeTemporaryFiles(of: url)
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        }
    }

    private func load(_ cached: inout [String: Data]?) -> [String: Data] {
        if let cached { return cached }
        let loaded = (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode([String: Data].self, from: $0) } ?? [:]
        cached = loaded
        return loaded
    }

    private func write(_ values: [String: Data]) throws {
        try ProtectedFiles.createDirectory(url.deletingLastPathComponent())
        willWrite?()
        try ProtectedFiles.writeAtomically(try JSONEncoder().encode(values), to: url)
    }
}
