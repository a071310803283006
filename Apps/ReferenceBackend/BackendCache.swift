import CacheKit
import Foundation

/// The backend's own cache of computed answers (today's prediction, a repeated question), by key with
/// an expiry. ``InMemoryBackendCache`` is the one the reference backend runs; in production this is
/// Redis (`GET key`, `SET key value EXAT expiry`): see `Apps/README.md`.
protocol BackendCache: Sendable {
    /// The value under `key` if it has not expired at `now`.
    func value(forKey key: String, now: Date) -> Data?
    /// Stores `value` under `key` until `expiry`.
    func set(_ value: Data, forKey key: String, expiry: Date)
    /// Removes every key that starts with `prefix` (a session's answers at logout).
    func removeAll(prefix: String)
}

/// A ``BackendCache`` in the process's memory; expired entries are dropped when read.
final class InMemoryBackendCache: BackendCache {
    private let entries = Locked<[String: (value: Data, expiry: Date)]>([:])

    func value(forKey key: String, now: Date) -> Data? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expiry > now else {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    func set(_ value: Data, forKey key: String, expiry: Date) {
        entries.withLock { $0[key] = (value, expiry) }
    }

    func removeAll(prefix: String) {
        entries.withLock { entries in entries = entries.filter { !$0.key.hasPrefix(prefix) } }
    }
}
