import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// Launch: the stored token picked up and checked with the server (REQ AUTH-2).
extension SessionManager {
    /// Picks up the stored token at launch (REQ AUTH-2): none → signed out; otherwise
    /// validating, then `GET /auth/validate` decides: valid → signed in; 401 → the token and every
    /// cache are cleared, signed out; the server unreachable (or failing) → offline, with cached
    /// content allowed, until ``revalidate()``.
    public func launch() async {
        if let deletion = finishAccountDeletionLeftUnfinished() { return await deletion.value }
        guard let stored = pickUpStoredToken() else { return }
        await validate(stored)
    }

    /// Launches offline first (REQ AUTH-2): picks up the stored token at once, so the first screen can
    /// show the user's cached content while the session is ``SessionState/validating``, and checks the
    /// token with the server in a task of its own, which ends as ``launch()`` does (signed in; refused →
    /// signed out and every cache cleared; unreachable → offline).
    ///
    /// ```swift
    /// session.launchOfflineFirst()
    /// let page = try await catalog.page()  // from the cache, without waiting for the server
    /// ```
    /// - Returns: the token's check, to await where the outcome matters (a test, a background task), or the end of
    ///   an account deletion an earlier run left unfinished (``deleteAccountData()``); `nil` when no token is stored:
    ///   the session is signed out already.
    @discardableResult
    public func launchOfflineFirst() -> Task<Void, Never>? {
        if let deletion = finishAccountDeletionLeftUnfinished() { return deletion }
        guard let stored = pickUpStoredToken() else { return nil }
        return Task { await validate(stored) }
    }

    /// Reads the stored token into the state: ``SessionState/validating`` with it, or signed out
    /// without one. A token that does not decode is deleted; one the store could not read now (a file system error, a
    /// Keychain not yet unlocked) is kept for a later launch, and this one is signed out.
    func pickUpStoredToken() -> StoredToken? {
        let stored: StoredToken?
        do {
            stored = try configuration.tokenStore.load()
        } catch {
            configuration.logger.warning("The stored token could not be read; signing out", metadata: ["error": "\(error)"])
            if case .corrupt = error { tokenFile.withLock { _ in try? configuration.tokenStore.delete() } }
            stored = nil
        }
        guard let stored else {
            transition {
                $0.session = .signedOut
                $0.token = nil
            }
            return nil
        }
        transition {
            $0.session = .validating
            $0.token = stored
        }
        return stored
    }

    /// Checks the token again when offline; does nothing otherwise. Called by itself when the network
    /// returns if ``Configuration/connectivity`` is set.
    public func revalidate() async {
        guard case .offline = current, let token = state.withLock({ $0.token }) else { return }
        await validate(token)
    }

    func validate(_ token: StoredToken) async {
        let response: TransportResponse
        do {
            response = try await send(.get, "/auth/validate", token: token.accessToken)
        } catch {
            configuration.logger.info("The token could not be checked; offline", metadata: ["error": "\(error)"])
            await goOffline(token)
            return
        }
        switch response.status {
        case 200..<300:
            let body = try? JSONValue.parse(response.body)
            let expiresAt = body?["expiresAt"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) } ?? token.expiresAt
            let userId = body?["userId"]?.stringValue ?? token.userId
            var validated = token
            validated.expiresAt = expiresAt
            validated.validatedAt = configuration.now()
            validated.lastSeenAt = validated.validatedAt
            saveToken(validated, replacing: token, save: needsSaving(validated, stored: token)) {
                $0.session = .signedIn(SignedInUser(userId: userId, expiresAt: expiresAt))
            }
        case 401, 403:
            configuration.logger.info("The stored token was refused; signing out")
            await end(to: .signedOut, expecting: token, cause: .expired)
        default:
            configuration.logger.warning("The token check failed; offline", metadata: ["status": "\(response.status)"])
            await goOffline(token)
        }
    }

    /// Whether a check's outcome is worth a write of the token file (a durable write, which a relaunch
    /// would otherwise pay beside its first screen): when the expiry changed, or the stored
    /// check is older than a hundredth of the offline grace. Skipping it only shortens the offline grace
    /// of a later offline launch by that much, never lengthens it.
    func needsSaving(_ validated: StoredToken, stored: StoredToken) -> Bool {
        guard validated.expiresAt == stored.expiresAt, let storedAt = stored.validatedAt, let validatedAt = validated.validatedAt
        else { return true }
        return validatedAt.timeIntervalSince(storedAt) >= offlineGraceSeconds / 100
    }
}
