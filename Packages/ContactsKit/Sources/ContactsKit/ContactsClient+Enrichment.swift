import APICore
import APICoreREST
import CacheKit
import Foundation

// Enrichment data, cached first: a detail screen shows the kept copy at once and never waits on the network
// when one exists; past an hour it is fetched again in the background. Without a kept copy it is fetched
// now, and offline the screen shows an "Offline" badge.
extension ContactsClient {
    /// The contact's enrichment data: the kept copy at once when there is one (past an hour, labelled "Last
    /// updated X ago" and fetched again in the background), else fetched now and kept. Offline without a
    /// kept copy: `nil` labelled "Offline".
    /// - Throws: ``ContactsError/signedOut``, ``ContactsError/notFound`` when the server has no such
    ///   contact, or the server's error other than the network's.
    public func enrichment(of contactId: String) async throws(ContactsError) -> ContactsReading<ContactEnrichment?> {
        let lease = try await currentLease()
        if let kept = try storage({ try store.enrichment(of: contactId, userId: lease.userId) }) {
            let freshness = Freshness(.stale, storedAt: kept.savedAt, now: clock.now())
            guard freshness.age > FreshnessWindow.detail else {
                return ContactsReading(value: kept.value, syncedAt: kept.savedAt, staleLabel: nil)
            }
            if mayRefresh("enrichment:\(contactId)") { Task { [self] in _ = try? await fetchEnrichment(contactId, lease: lease) } }
            let label = StaleIndicator.lastUpdated(after: FreshnessWindow.detail).staleLabel(for: freshness)
            return ContactsReading(value: kept.value, syncedAt: kept.savedAt, staleLabel: label)
        }
        do {
            return ContactsReading(value: try await fetchEnrichment(contactId, lease: lease), syncedAt: clock.now(), staleLabel: nil)
        } catch .transport {
            return ContactsReading(value: nil, syncedAt: nil, staleLabel: .offlineNeverSeen)
        } catch {
            if case .server(let answer) = error, answer.status == 404 { throw .notFound }
            throw .api(error)
        }
    }

    /// Fetches the contact's enrichment data and keeps it.
    private func fetchEnrichment(_ contactId: String, lease: UserDatabases.Lease) async throws(APIError) -> ContactEnrichment {
        var request = APIRequest<ContactEnrichment>(
            path: PathSegments.path("contacts", contactId, "enrichment"), feature: "contacts.enrichment",
            decode: ContactsClient.decodeEnvelope)
        request.owner = lease.userId
        let value = try await rest.send(request, policy: .fetchIgnoringCacheCompletely).value
        try? store.saveEnrichment(value, at: clock.now(), lease: lease)
        return value
    }
}
