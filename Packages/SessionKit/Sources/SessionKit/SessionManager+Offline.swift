import Foundation
import Logging

// Offline use is bounded (security review, finding 4): by the token's own expiry and by the offline grace.
extension SessionManager {
    /// Why `token` may no longer be used offline, or `nil` while it may.
    func offlineLimit(of token: StoredToken) -> SessionExpiry.Reason? {
        let now = configuration.now()
        if let expiresAt = token.expiresAt, now >= expiresAt { return .tokenExpired }
        if let validatedAt = token.validatedAt, now.timeIntervalSince(validatedAt) >= offlineGraceSeconds { return .offlineTooLong }
        return nil
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
        let offline = SignedInUser(userId: token.userId, expiresAt: token.expiresAt)
        transition { if $0.token == token { $0.session = .offline(offline) } }
    }

    func endOffline(_ token: StoredToken, reason: SessionExpiry.Reason) async {
        configuration.logger.info("The session ended offline", metadata: ["reason": "\(reason)"])
        await end(to: .expired(SessionExpiry(status: 0, path: "", reason: reason)), expecting: token)
    }
}
