import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Logging

extension ContactsClient {
    /// The intent of subscribing to premium: one at a time per user.
    static let subscribeIntent = "contacts.premium.subscribe"

    /// Subscribes to premium, now: never queued, and never charged twice. The request carries an
    /// idempotency key kept on disk until the server's answer is known: subscribing again after a timeout,
    /// a dropped connection or a relaunch sends the same key, and the server answers with its first outcome.
    /// - Throws: ``ContactsError/requiresConnection`` ("Connect to purchase") when no server could be reached;
    ///   ``ContactsError/purchaseOutcomeUnknown`` when the request may have reached the server and no answer
    ///   came (subscribe again to learn the outcome); ``ContactsError/api(_:)`` when the server refused, or with
    ///   `APIError.sessionChanged` when the account was deleted or another user signed in before it was sent.
    public func subscribePremium() async throws(ContactsError) {
        let user = try await currentUser()
        let kept: String?
        do {
            kept = try await intents.key(for: Self.subscribeIntent, user: user) { try? await self.currentUser() }
        } catch {
            throw .storage(reason: "\(error)")
        }
        // The account was deleted, or another user signed in, since the user was read: nothing sent, no key left.
        guard let key = kept else { throw .api(.sessionChanged) }
        var request = APIRequest<Data>(
            method: .post, path: "/premium/subscribe", feature: "contacts.premium", idempotencyKey: key)
        request.owner = user
        do {
            _ = try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch {
            // The key is forgotten only when the server refused the purchase for a reason of its own. Any other
            // answer may follow an attempt the server took (the client retries with the same key): a 401, a 403,
            // a 409, a 5xx, a timeout. The key stays; subscribing again never charges twice.
            if case .server(let refusal) = error, Self.refusals.contains(refusal.status) { settle(key: key, user: user) }
            // Another user signed in before it was sent: not an unknown outcome, and not the new user's to buy.
            if case .sessionChanged = error { throw .api(error) }
            guard error.isFinalAnswer else {
                throw error.isOffline ? .requiresConnection : .purchaseOutcomeUnknown
            }
            throw .api(error)
        }
        settle(key: key, user: user)
    }

    /// The statuses of a server's own refusal of a purchase (a bad request, payment required, not found, gone).
    static let refusals: Set<Int> = [400, 402, 404, 410]

    /// Whether a purchase was sent and its outcome is not known yet: a screen can offer "Check my purchase"
    /// (``subscribePremium()`` again), which never charges twice.
    public func hasUnconfirmedPurchase() async throws(ContactsError) -> Bool {
        intents.isUnresolved(Self.subscribeIntent, user: try await currentUser())
    }

    /// The answer is known: the next subscription is a new intent. A key that cannot be forgotten only makes
    /// that next subscription replay this one's answer, so the failure is logged, not thrown.
    private func settle(key: String, user: String) {
        do {
            try intents.settle(Self.subscribeIntent, key: key, user: user)
        } catch {
            environment.logger.warning("Could not forget a settled purchase key", metadata: ["error": "\(error)"])
        }
    }
}
