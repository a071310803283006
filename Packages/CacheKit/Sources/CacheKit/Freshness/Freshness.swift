import Foundation

/// How old a result's data is, and whether it may be relied on: carried by every result of the three
/// caches (``CacheUpdate``, and APICore's `APIResponse` and `GraphQLResult`).
///
/// ```swift
/// let update = try await profiles.read(forKey: "profile", scope: .user(id), stale: .ifLoadFails) { try await backend.profile() }
/// if update.freshness.state == .offline {
///     render("Offline · \(StaleIndicator.lastUpdated(after: 0).label(for: update.freshness) ?? "")")
/// }
/// ```
public struct Freshness: Sendable, Hashable {
    /// Whether the data is within its lifetime.
    public enum State: String, Sendable, Hashable, Codable {
        /// Within its lifetime: fetched just now, or cached and not yet expired.
        case fresh
        /// Past its lifetime, served because the read allowed it (stale-while-revalidate, a request's
        /// `max-stale`), usually while a refresh runs.
        case stale
        /// Served because the network failed: the last known data, however old.
        case offline
    }

    /// Fresh, stale or offline.
    public var state: State
    /// When the data was stored or last confirmed by the server.
    public var storedAt: Date
    /// How old the data was when it was read, in seconds (never negative).
    public var age: TimeInterval
    /// When fresh data read from a cache stops being fresh, as that cache reckons it; `nil` when it is not
    /// known (data fetched just now, data that never expires, stale or offline data).
    public var expiresAt: Date?

    /// Creates a freshness.
    public init(state: State, storedAt: Date, age: TimeInterval, expiresAt: Date? = nil) {
        self.state = state
        self.storedAt = storedAt
        self.age = max(0, age)
        self.expiresAt = expiresAt
    }

    /// Data stored at `storedAt`, read at `now`, in `state`, fresh until `expiresAt` when known.
    public init(_ state: State, storedAt: Date, now: Date, expiresAt: Date? = nil) {
        self.init(state: state, storedAt: storedAt, age: now.timeIntervalSince(storedAt), expiresAt: expiresAt)
    }

    /// Data that has just arrived from the network.
    public static func fetched(at now: Date) -> Freshness {
        Freshness(state: .fresh, storedAt: now, age: 0)
    }

    /// Whether the data is past its lifetime (stale or offline).
    public var isStale: Bool { state != .fresh }

    /// The same data, labelled as served because the network failed.
    public var offline: Freshness {
        Freshness(state: .offline, storedAt: storedAt, age: age)
    }
}
