import Foundation

/// Where the session stands; observe it with ``SessionManager/states()``.
public enum SessionState: Sendable, Hashable {
    /// Nobody is signed in (first launch, after logout, after account deletion).
    case signedOut
    /// A stored token is being checked with `GET /auth/validate` (show a loading state).
    case validating
    /// Signed in with a token the server accepted.
    case signedIn(SignedInUser)
    /// Signed in with a token that could not be checked because the server could not be reached:
    /// cached content may be shown, marked offline. ``SessionManager/revalidate()`` checks it again.
    case offline(SignedInUser)
    /// The server refused the session; everything of the user was cleared. ``SessionExpiry/message``
    /// is what the user sees.
    case expired(SessionExpiry)

    /// Why the session expired, when it did.
    public var expiry: SessionExpiry? {
        if case .expired(let expiry) = self { expiry } else { nil }
    }

    /// The signed-in user, when signed in or offline.
    public var user: SignedInUser? {
        switch self {
        case .signedIn(let user), .offline(let user): user
        case .signedOut, .validating, .expired: nil
        }
    }
}

/// The signed-in user.
public struct SignedInUser: Sendable, Hashable {
    /// The user's id.
    public var userId: String
    /// When the token expires, if the server said.
    public var expiresAt: Date?

    /// Creates a user.
    public init(userId: String, expiresAt: Date?) {
        self.userId = userId
        self.expiresAt = expiresAt
    }
}

/// Why a session ended on the server's word.
public struct SessionExpiry: Sendable, Hashable {
    /// Who ended the session.
    public enum Reason: Sendable, Hashable {
        /// The server refused a request (``status`` and ``path`` say which).
        case refusedByServer
        /// The token's own expiry passed while the server could not be reached.
        case tokenExpired
        /// The device stayed offline longer than ``SessionManager/Configuration/offlineGrace`` since the
        /// server last accepted the token: a session revoked meanwhile must not show data for ever.
        case offlineTooLong
        /// The stored token was never validated on this device (a file from before the grace existed):
        /// it may be used only after the server accepts it again.
        case notValidated
        /// The device's clock is earlier than the last time the session saw it: the date was set back,
        /// which must not stretch the offline grace.
        case clockSetBack
    }

    /// The status that ended it (401 or 403; 0 when the device ended it).
    public var status: Int
    /// The path of the request that was refused (no query; empty when the device ended it).
    public var path: String
    /// Who ended it.
    public var reason: Reason

    /// What the user sees (REQ AUTH-1).
    public var message: String { "Session expired, please log in again" }

    /// Creates an expiry.
    public init(status: Int, path: String, reason: Reason = .refusedByServer) {
        self.status = status
        self.path = path
        self.reason = reason
    }
}
