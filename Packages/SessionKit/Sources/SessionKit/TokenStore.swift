import Foundation

/// The signed-in user's token as it is kept between launches. Its description never shows the token.
public struct StoredToken: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Sent as `Authorization: Bearer <token>`.
    public var accessToken: String
    /// The user it belongs to.
    public var userId: String
    /// When it expires, if known.
    public var expiresAt: Date?
    /// When the server last accepted it (a sign-in or a validation): where the offline grace starts.
    /// `nil` (a file written before the grace existed): the token must be validated online before any
    /// offline use.
    public var validatedAt: Date?
    /// The latest time the device's clock showed while the session was used (a high-water mark): a clock
    /// set back before it ends offline use, so setting the date back cannot stretch the grace.
    public var lastSeenAt: Date?
    /// `true` for the marker of an account deletion under way (``deletionMarker(of:)``): no token at all, only whose
    /// deletion a launch must finish (``SessionManager/deleteAccountData()``).
    public var erasingAccount: Bool?

    /// The marker ``SessionManager/deleteAccountData()`` stores in place of `userId`'s token before it erases anything:
    /// no access token, and ``erasingAccount`` set. A run killed before the deletion ends leaves it, and the next launch
    /// finishes the deletion instead of signing anyone in.
    public static func deletionMarker(of userId: String) -> StoredToken {
        var marker = StoredToken(accessToken: "", userId: userId, expiresAt: nil)
        marker.erasingAccount = true
        return marker
    }

    /// Creates a token.
    public init(accessToken: String, userId: String, expiresAt: Date?, validatedAt: Date? = nil) {
        self.accessToken = accessToken
        self.userId = userId
        self.expiresAt = expiresAt
        self.validatedAt = validatedAt
    }

    /// How far the clock may go back before it counts as set back (network time corrections).
    public static let clockTolerance: TimeInterval = 300

    /// Why the token may no longer be used offline at `now`, or `nil` while it may: past its own expiry;
    /// never validated on this device; the clock earlier than the last time seen (``lastSeenAt``, or
    /// ``validatedAt``) by more than ``clockTolerance``; or `grace` seconds since the server last accepted it.
    public func offlineLimit(at now: Date, grace: TimeInterval) -> SessionExpiry.Reason? {
        if let expiresAt, now >= expiresAt { return .tokenExpired }
        guard let validatedAt else { return .notValidated }
        if now < max(validatedAt, lastSeenAt ?? validatedAt).addingTimeInterval(-Self.clockTolerance) { return .clockSetBack }
        if now.timeIntervalSince(validatedAt) >= grace { return .offlineTooLong }
        return nil
    }

    /// Equal when the token, user, expiry and last validation are: ``lastSeenAt`` is bookkeeping that
    /// moves with every use, so a session holding the token keeps recognising it.
    public static func == (lhs: StoredToken, rhs: StoredToken) -> Bool {
        lhs.accessToken == rhs.accessToken && lhs.userId == rhs.userId && lhs.expiresAt == rhs.expiresAt
            && lhs.validatedAt == rhs.validatedAt
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(accessToken)
        hasher.combine(userId)
        hasher.combine(expiresAt)
        hasher.combine(validatedAt)
    }

    /// The user, never the token.
    public var description: String { "StoredToken(user: \(userId), token: <redacted>)" }
}

/// Where the token is kept between launches: ``FileTokenStore`` on Linux (in application support,
/// ``FileTokenStore/defaultURL(app:)``, never in a caches folder the system may purge),
/// `KeychainTokenStore` on Apple platforms, `InMemoryTokenStore` in SessionKitTesting.
public protocol TokenStore: Sendable {
    /// The stored token, or `nil` when there is none.
    /// - Throws: ``TokenStoreError`` when it cannot be read or does not decode.
    func load() throws(TokenStoreError) -> StoredToken?
    /// Replaces the stored token, atomically.
    func save(_ token: StoredToken) throws(TokenStoreError)
    /// Removes the stored token; no error when there is none.
    func delete() throws(TokenStoreError)
}

/// Why a token store failed. Messages never include the token.
public enum TokenStoreError: Error, Sendable, Hashable {
    /// The stored token does not decode (a truncated or foreign file); it should be deleted.
    case corrupt(reason: String)
    /// The file system refused (`errno` and the operation).
    case io(operation: String, errno: Int32)
}

extension TokenStoreError: CustomStringConvertible {
    /// The form for logs and `mib`'s output: the operation and the system's reason, never the token.
    public var description: String {
        switch self {
        case .corrupt(let reason): "the stored token is unreadable: \(reason)"
        case .io(let operation, let errno): "the token file could not be \(operation) (errno \(errno))"
        }
    }
}

extension TokenStoreError: LocalizedError {
    /// A sentence for people: the session could not be kept, so signing in again fixes it.
    public var errorDescription: String? { "Your session could not be kept on this device. Sign in again." }
}
