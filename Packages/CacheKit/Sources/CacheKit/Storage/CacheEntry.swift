import Foundation

/// What a store keeps beside a value: when it was stored, when it stops being fresh, the timeout it
/// was declared with (so a settings change can re-stamp it) and whom it belongs to.
public struct CacheEntryMetadata: Sendable, Hashable {
    /// When the value was stored.
    public var storedAt: Date
    /// When the value stops being fresh; `nil` for never.
    public var expiresAt: Date?
    /// The timeout the value was declared with, before settings overrides.
    public var timeout: CacheTimeout
    /// Whom the value belongs to.
    public var scope: CacheScope

    /// Creates metadata.
    public init(storedAt: Date, expiresAt: Date?, timeout: CacheTimeout = .useDefault, scope: CacheScope = .shared) {
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.timeout = timeout
        self.scope = scope
    }

    /// Whether the value is still fresh at `now`.
    @inlinable
    public func isFresh(at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return now < expiresAt
    }
}

/// A value with its metadata, as a store returns it.
public struct CacheEntry<Value> {
    /// The stored value.
    public var value: Value
    /// When it was stored, when it expires, whom it belongs to.
    public var metadata: CacheEntryMetadata

    /// Creates an entry.
    @inlinable
    public init(value: Value, metadata: CacheEntryMetadata) {
        self.value = value
        self.metadata = metadata
    }
}

extension CacheEntry: Sendable where Value: Sendable {}

/// One entry as a store describes it for statistics and debugging exports: no value, only its size.
public struct CacheEntryDescription: Sendable, Hashable {
    /// The entry's key, raw. Print it through ``RedactedKey`` only.
    public var key: String
    /// The entry's size in bytes as the store counts it.
    public var bytes: Int
    /// The entry's metadata.
    public var metadata: CacheEntryMetadata

    /// Creates a description (for participants outside CacheKit that export their own entries).
    public init(key: String, bytes: Int, metadata: CacheEntryMetadata) {
        self.key = key
        self.bytes = bytes
        self.metadata = metadata
    }
}

/// What a store's `get` found, before it is counted.
@usableFromInline
enum LookupStatus {
    case hit
    case miss
    case expired
}
