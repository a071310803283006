import Foundation

/// A session that ended, as every handler registered with ``SessionManager/onSessionEnd(_:)`` hears it: one
/// event for every way a session ends, so what holds a user's state in memory (a queue's pending and
/// refused changes, a screen model) can drop it before anything of the next user is shown.
public struct SessionEnd: Sendable, Hashable {
    /// How the session ended.
    public enum Cause: Sendable, Hashable {
        /// The user logged out.
        case logout
        /// The server refused the session (a 401 or 403, a refused token at launch), or it ran out offline
        /// (the token's expiry, the offline grace, a clock set back).
        case expired
        /// The user deleted their account's data on the device.
        case accountDeleted
        /// Someone signed in (another user, or the same one again): whoever was before is gone.
        case signIn
    }

    /// Whose session ended, when known (`nil` when nobody was signed in, or a sign-in found no one).
    public var userId: String?
    /// How it ended.
    public var cause: Cause

    /// Creates an event.
    public init(userId: String?, cause: Cause) {
        self.userId = userId
        self.cause = cause
    }
}
