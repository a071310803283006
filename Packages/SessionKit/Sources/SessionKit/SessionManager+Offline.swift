import Foundation
import Logging

// Offline use is bounded (security reviews one and two): by the token's own expiry, by the offline grace,
// by a validation on this device, and by the clock's high-water mark.
extension SessionManager {
    /// Why `token` may no longer be used offline, or `nil` while it may (``StoredToken/offlineLimit(at:grace:)``).
    func offlineLimit(of token: StoredToken) -> SessionExpiry.Reason? {
        token.offlineLimit(at: configuration.now(), grace: offlineGraceSeconds)
    }

    /// ``Configuration/offlineGrace`` in seconds.
    var offlineGraceSeconds: TimeInterval {
        let (seconds, attoseconds) = configuration.offlineGrace.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Goes offline with `token`, unless a limit has passed: then the session ends and every cache is cleared.
    func goOffline(_ token: StoredToken) async {
        if let reason = offlineLimit(of: token) {
            await endOffline(token, reason: reason)
            return
        }
        // The clock's high-water mark moves on, and is kept: a date set back later is seen.
        var seen = token
        let now = configuration.now()
        let moved = now > (token.lastSeenAt ?? .distantPast)
        if moved { seen.lastSeenAt = now }
        let offline = SignedInUser(userId: token.userId, expiresAt: token.expiresAt)
        saveToken(seen, replacing: token, save: moved) { $0.session = .offline(offline) }
    }

    func endOffline(_ token: StoredToken, reason: SessionExpiry.Reason) async {
        configuration.logger.info("The session ended offline", metadata: ["reason": "\(reason)"])
        await end(to: .expired(SessionExpiry(status: 0, path: "", reason: reason)), expecting: token, cause: .expired)
    }
}
