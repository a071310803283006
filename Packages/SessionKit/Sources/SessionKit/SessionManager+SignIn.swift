import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

// Signing in: the credentials checked, the previous user's data cleared, the new token saved and handed out.
extension SessionManager {
    /// Signs in: checks the e-mail and password with the backend's own rules, then `POST /auth/login`.
    /// Every cache is cleared before the new user's token is used, so nothing of a previous user
    /// can be read.
    /// - Throws: ``SignInError``; the session stays signed out.
    @discardableResult
    public func signIn(email: String, password: String) async throws(SignInError) -> SignedInUser {
        // A deletion of an account that did not finish (an eraser failed) is finished first: this sign-in's token
        // would otherwise replace its marker, and the rest of the deleted user's data would stay.
        if let deletion = finishAccountDeletionLeftUnfinished() { await deletion.value }
        guard CredentialRules.isValidEmail(email) else { throw .invalidEmail(message: CredentialRules.invalidEmailMessage) }
        let unmet = CredentialRules.unmetRequirements(password)
        guard unmet.isEmpty else { throw .weakPassword(unmet) }
        let body = Data((try? JSONEncoder().encode(["email": email, "password": password])) ?? Data())
        let response: TransportResponse
        do {
            var fields = HTTPFields()
            if let key = configuration.deviceKeys?.key(for: email), let name = HTTPField.Name("Device-Key") { fields[name] = key }
            response = try await send(.post, "/auth/login", body: body, fields: fields)
        } catch {
            throw .api(.transport(error))
        }
        guard (200..<300).contains(response.status) else {
            let error = APIError(status: response.status, body: response.body)
            if response.status == 401 {
                let message = (try? JSONValue.parse(response.body))?["error"]?["message"]?.stringValue
                throw .rejected(message: message ?? "Wrong e-mail or password.")
            }
            if response.status == 429 {
                let seconds = HTTPField.Name("Retry-After").flatMap { response.headerFields[$0] }.flatMap { Int($0) }
                throw .rateLimited(retryAfter: seconds.map { .seconds($0) })
            }
            throw .api(error)
        }
        let data = (try? JSONValue.parse(response.body))?["data"]
        guard let accessToken = data?["token"]?.stringValue, let userId = data?["user"]?["id"]?.stringValue else {
            throw .api(.decoding(path: "data.token", reason: "the login answer has no token or user id"))
        }
        if let key = data?["deviceKey"]?.stringValue { configuration.deviceKeys?.save(key, for: email, userId: userId) }
        let expiresAt = data?["expiresAt"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }
        let token = StoredToken(accessToken: accessToken, userId: userId, expiresAt: expiresAt, validatedAt: configuration.now())
        // The previous user's token is no longer handed out before the clearing starts, so no work of theirs
        // (a sync's page, a load) can begin during the clearing and write after it.
        let previous = state.withLock { state -> String? in
            let user = state.token?.userId ?? state.session.user?.userId
            state.token = nil  // the previous user's token is handed out no more
            return user
        }
        await announceEnd(SessionEnd(userId: previous, cause: .signIn))
        // Clearing fails closed (security review, finding 7): nothing of the previous user may remain
        // readable when the next one signs in, so an incomplete clear refuses the sign-in.
        let cleared = await configuration.caches.clearAllCaches()
        guard cleared.isComplete else {
            configuration.logger.error(
                "Sign-in refused: the previous user's data could not be cleared",
                metadata: ["failed": "\(cleared.failed.map(\.participant))"])
            throw .previousUserDataNotCleared(participants: cleared.failed.map(\.participant))
        }
        let user = SignedInUser(userId: userId, expiresAt: expiresAt)
        do {
            // Saved and taken in one section: no ending's deletion (it deletes only while no token is held) lands between.
            try tokenFile.withLock { _ throws(TokenStoreError) in
                try configuration.tokenStore.save(token)
                transition {
                    $0.session = .signedIn(user)
                    $0.token = token
                }
            }
        } catch {
            throw .tokenStorage(error)
        }
        return user
    }
}
