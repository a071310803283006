import APICore
import APICoreREST
import CacheKit
import Foundation

// Enrichment data: fetched when a contact is opened online and kept on the device, so offline it shows
// what was last seen, or an "Offline" badge when it was never seen.
extension ContactsClient {
    /// The contact's enrichment data: fetched now and kept; when the network fails, the kept copy
    /// labelled "Offline · last updated X ago", or `nil` labelled "Offline" when there is none.
    /// - Throws: ``ContactsError/signedOut``, or the server's error other than the network's.
    public func enrichment(of contactId: String) async throws(ContactsError) -> ContactsReading<ContactEnrichment?> {
        let lease = try await currentLease()
        let user = lease.userId
        let response: APIResponse<ContactEnrichment>
        var request = APIRequest<ContactEnrichment>(
            path: PathSegments.path("contacts", contactId, "enrichment"), feature: "contacts.enrichment",
            decode: ContactsClient.decodeEnvelope)
        request.owner = user
        do {
            response = try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch .transport {
            let kept = try storage { try store.enrichment(of: contactId, userId: user) }
            guard let kept else { return ContactsReading(value: nil, syncedAt: nil, staleLabel: .offlineNeverSeen) }
            let label = StaleIndicator.none.staleLabel(for: Freshness(.offline, storedAt: kept.savedAt, now: clock.now()))
            return ContactsReading(value: kept.value, syncedAt: kept.savedAt, staleLabel: label)
        } catch {
            if case .server(let answer) = error, answer.status == 404 { throw .notFound }
            throw .api(error)
        }
        let now = clock.now()
        try storage { try store.saveEnrichment(response.value, at: now, lease: lease) }
        return ContactsReading(value: response.value, syncedAt: now, staleLabel: nil)
    }
}
