import CacheKit
import Foundation

/// The keys the server gave this device at its successful sign-ins, one per account: shown at the next sign-in
/// to that account (`Device-Key`), they give the device a budget of failed sign-ins of its own, which a
/// stranger's failures from the same address cannot spend (the owner is never locked out by someone else's
/// guesses). Kept across logouts in a 0600 file of a 0700 folder, accounts and users named by hashes; an
/// account's deletion takes its key only (``erase(userId:)``).
public final class DeviceKeys: Sendable {
    /// The file.
    public let url: URL
    private let lock = Locked(())

    private struct Entry: Codable, Equatable {
        var key: String
        /// A hash of the user's id: what an account's deletion names.
        var user: String
    }

    /// The keys kept in the file at `url` (created at the first save).
    public init(url: URL) {
        self.url = url
    }

    /// The key the device was given for `email`, if any.
    public func key(for email: String) -> String? {
        lock.withLock { _ in read()[Self.hash(email.lowercased())]?.key }
    }

    /// Keeps `key` for `email`, the account of user `userId`.
    public func save(_ key: String, for email: String, userId: String) {
        lock.withLock { _ in
            var entries = read()
            let entry = Entry(key: key, user: Self.hash(userId))
            guard entries[Self.hash(email.lowercased())] != entry else { return }
            entries[Self.hash(email.lowercased())] = entry
            store(entries)
        }
    }

    /// Forgets the key of user `userId` (their account was deleted), or every key when `userId` is `nil`.
    public func erase(userId: String?) {
        lock.withLock { _ in
            var entries = read()
            if let userId { entries = entries.filter { $0.value.user != Self.hash(userId) } } else { entries = [:] }
            store(entries)
        }
    }

    private static func hash(_ text: String) -> String {
        StableHash.sha256(text)
    }

    private func read() -> [String: Entry] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
    }

    /// Written through `ProtectedFiles` (a 0600 temporary file renamed over the file, in a 0700 folder); the file
    /// goes with its last key.
    private func store(_ entries: [String: Entry]) {
        guard !entries.isEmpty else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let data = try? JSONEncoder().encode(entries) else { return }
        try? ProtectedFiles.createDirectory(url.deletingLastPathComponent())
        try? ProtectedFiles.writeAtomically(data, to: url)
    }
}
