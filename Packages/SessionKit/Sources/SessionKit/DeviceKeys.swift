import CacheKit
import Foundation

/// The keys the server gave this device at its successful sign-ins, one per account: shown at the next sign-in
/// to that account (`Device-Key`), they give the device a budget of failed sign-ins of its own, which a
/// stranger's failures from the same address cannot spend (the owner is never locked out by someone else's
/// guesses). Kept across logouts in a 0600 file of a 0700 folder, accounts named by a hash of their e-mail;
/// erased with the account (``erase(email:)``).
public final class DeviceKeys: Sendable {
    /// The file.
    public let url: URL
    private let lock = Locked(())

    /// The keys kept in the file at `url` (created at the first save).
    public init(url: URL) {
        self.url = url
    }

    /// The key the device was given for `email`, if any.
    public func key(for email: String) -> String? {
        lock.withLock { _ in read()[Self.account(email)] }
    }

    /// Keeps `key` for `email`.
    public func save(_ key: String, for email: String) {
        lock.withLock { _ in
            var keys = read()
            guard keys[Self.account(email)] != key else { return }
            keys[Self.account(email)] = key
            write(keys)
        }
    }

    /// Forgets the key of `email` (the account was deleted), or every key when `email` is `nil`.
    public func erase(email: String?) {
        lock.withLock { _ in
            var keys = read()
            if let email { keys[Self.account(email)] = nil } else { keys = [:] }
            write(keys)
        }
    }

    private static func account(_ email: String) -> String {
        StableHash.sha256(email.lowercased())
    }

    private func read() -> [String: String] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    private func write(_ keys: [String: String]) {
        let folder = url.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard !keys.isEmpty else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let data = try? JSONEncoder().encode(keys), (try? data.write(to: url, options: .atomic)) != nil else { return }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}
