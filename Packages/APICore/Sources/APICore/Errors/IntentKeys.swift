import CacheKit
import Foundation

/// One idempotency key per intent (a purchase, a payment), kept on disk until the intent's outcome is known.
///
/// A change that moves money must never be applied twice because an answer was lost: a timeout after the
/// server took the request, a dropped connection, a process killed while waiting. The kit asks for the
/// intent's key before sending; it gets the key kept from an earlier attempt whose outcome is still unknown,
/// or a new one (written before it is returned). It settles the intent when the server gave its last word
/// (``APIError/isFinalAnswer``). Sent again, possibly after a relaunch, the same key makes the server answer
/// with its first outcome instead of charging twice.
///
/// ```swift
/// guard let key = try await keys.key(for: "premium.subscribe", user: user, signedIn: { await session.currentCredentials()?.userId })
/// else { return }                                       // the user's session ended: nothing was sent, nothing kept
/// do {
///     try await send(idempotencyKey: key)
///     try keys.settle("premium.subscribe", key: key, user: user)
/// } catch let error as APIError where error.isFinalAnswer {
///     try keys.settle("premium.subscribe", key: key, user: user)   // refused: a new attempt is a new intent
///     throw error
/// }                                                     // otherwise: outcome unknown, the key stays
/// ```
///
/// One 0600 file per user (named by a keyed hash of the id, the key in the folder) in a 0700 folder; intents are stored as SHA-256 hashes,
/// not in words (an account, an amount and a description are few enough to be guessed from one, so the file
/// relies on its mode, not on the hash, for secrecy). Erased with the user (``erase(userId:)``); kept across a logout, so a payment whose outcome was
/// unknown is still recognised when its user signs in again.
public final class IntentKeys: Sendable {
    /// The folder of the users' files.
    public let directory: URL
    /// One lock for every instance: two objects over one folder (a composition and the next) never write a
    /// user's file at once. It holds the keys handed to a caller in this process and not settled since: a key
    /// that a call made, and forgets because its session ended, is never one that another call holds.
    private static let lock = Locked<Set<String>>([])

    /// The key naming the users' files, read (or made) at the first use of a file.
    private let madeSecret = Locked<InstallSecret?>(nil)

    /// Keys kept under `directory` (created on first write).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The idempotency key for `intent` of `user`: the one kept from an attempt whose outcome is unknown,
    /// else a new one, kept on disk before it is returned, while `user` is still the one signed in.
    ///
    /// Who is signed in is asked again once the key is on disk: an account deletion whose eraser ran after the
    /// caller read its user, or another user's sign-in, never finds a key written after it. A key this call made
    /// is forgotten again then, unless another call holds it; one kept from an earlier attempt stays, its outcome
    /// still unknown. A key is handed out only while it is the one on disk.
    /// - Parameters:
    ///   - intent: what the user asked for, with everything that makes it this request
    ///     (`"payment|100|1250|Rent"`): the same words are the same intent while its outcome is unknown.
    ///   - user: whose intent it is: each user's keys are their own.
    ///   - signedIn: who is signed in now, as the caller read `user`.
    /// - Returns: the key, or `nil` when `user` is no longer signed in (send nothing then).
    /// - Throws: when the file cannot be written (send nothing then: a key not kept could not be reused).
    public func key(for intent: String, user: String, signedIn: @Sendable () async -> String?) async throws -> String? {
        // Another round only when another call forgot the key between this one's write and its second look.
        for _ in 0..<3 {
            let (key, made) = try Self.lock.withLock { _ in
                var keys = read(user: user)
                if let kept = keys[Self.name(intent)] { return (kept, false) }
                let key = UUID().uuidString
                keys[Self.name(intent)] = key
                try write(keys, user: user)
                return (key, true)
            }
            guard await signedIn() == user else {
                if made { try? forget(intent, key: key, user: user, unlessHeld: true) }
                return nil
            }
            let handedOut = Self.lock.withLock { handedOut in
                guard read(user: user)[Self.name(intent)] == key else { return false }
                handedOut.insert(key)
                return true
            }
            if handedOut { return key }
        }
        return nil
    }

    /// Forgets which keys were handed out, as a new process starts with none: for tests of a relaunch.
    static func forgetHandedOutKeys() {
        lock.withLock { $0.removeAll() }
    }

    /// Whether `intent` of `user` was sent and its outcome is not known yet (a screen can say "We could not
    /// confirm your purchase").
    public func isUnresolved(_ intent: String, user: String) -> Bool {
        Self.lock.withLock { _ in read(user: user)[Self.name(intent)] != nil }
    }

    /// Forgets `key`, the key of `intent` the caller sent: its outcome is known, and the next such intent is a new
    /// one. A newer key of the same intent (made after another call settled this one) stays: its outcome is its own.
    /// - Throws: when the file cannot be written.
    public func settle(_ intent: String, key: String, user: String) throws {
        try forget(intent, key: key, user: user, unlessHeld: false)
    }

    /// Removes `key` if it is still the key of `intent` on disk and rewrites the file; `unlessHeld` keeps one that was
    /// handed to a caller.
    private func forget(_ intent: String, key: String, user: String, unlessHeld: Bool) throws {
        try Self.lock.withLock { handedOut in
            var keys = read(user: user)
            guard keys[Self.name(intent)] == key, !(unlessHeld && handedOut.contains(key)) else { return }
            keys.removeValue(forKey: Self.name(intent))
            handedOut.remove(key)
            try write(keys, user: user)
        }
    }

    /// Deletes `userId`'s keys, or every user's for `nil` (account deletion, a device reset).
    /// - Throws: when a file cannot be removed.
    public func erase(userId: String?) throws {
        try Self.lock.withLock { _ in
            guard FileManager.default.fileExists(atPath: directory.path) else { return }
            guard let userId else { return try FileManager.default.removeItem(at: directory) }
            try secret().eraseUserFile(userId, suffix: ".json", in: directory)
        }
    }

    private static func name(_ intent: String) -> String { StableHash.sha256(intent) }

    /// The user's file, named by a keyed hash of their id (a guessed id finds no file).
    private func file(user: String) -> URL {
        secret().userFile(user, suffix: ".json", in: directory)
    }

    /// The key naming the files, read or made once.
    private func secret() -> InstallSecret {
        madeSecret.withLock { secret in
            if let secret { return secret }
            let made = InstallSecret(directory: directory)
            secret = made
            return made
        }
    }

    /// A file that does not parse (cut short by a full disk) is read as empty: its keys are lost, which at
    /// worst makes a retry a new intent, as it was before keys were kept.
    private func read(user: String) -> [String: String] {
        // No folder yet: nothing kept, and nothing made to say so.
        guard FileManager.default.fileExists(atPath: directory.path), let data = try? Data(contentsOf: file(user: user)) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    private func write(_ keys: [String: String], user: String) throws {
        if keys.isEmpty {
            let url = file(user: user)
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            return try InstallSecret.deleteIfAlone(in: directory)
        }
        try ProtectedFiles.createDirectory(directory)
        try ProtectedFiles.writeAtomically(try JSONEncoder().encode(keys), to: file(user: user))
    }
}
