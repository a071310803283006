import APICore
import APICoreREST
import CacheKit
import Foundation

// Freshness that refreshes: the windows the kit declares drive background refreshes. A read past its window
// still answers at once from the device; the refresh runs beside it and the observing reads see its result.
extension ContactsClient {
    /// How long each kind of data stays fresh (the offline storage specification's windows).
    public enum FreshnessWindow {
        /// The list and the circles: past a day, a read starts an incremental sync in the background.
        public static let list: TimeInterval = 86_400
        /// A contact's detail and the profile: past an hour, a read fetches it again in the background.
        public static let detail: TimeInterval = 3_600
        /// The least time between two background refreshes of the same data (a screen read in a loop
        /// while offline starts one attempt a minute, not one per read).
        public static let retry: TimeInterval = 60
    }

    /// Starts a sync in the background, silently (it joins one going): for the app's return to the
    /// foreground after more than an hour away (`AppLifecycle.whenBackAfterLongAbsence(_:)`), or a pull to
    /// refresh that does not wait.
    public func syncInBackground() {
        guard mayRefresh("sync") else { return }
        Task { [sync] in await sync.run() }
    }

    /// A push said these contacts changed on the server: each is fetched again now and stored (one the
    /// server no longer has is removed); the observing reads see them.
    /// - Throws: ``ContactsError/signedOut``; a contact that cannot be fetched is left as it is.
    public func invalidate(contactIds: [String]) async throws(ContactsError) {
        let lease = try await currentLease()
        for id in contactIds { await refreshContact(id, lease: lease) }
    }

    // MARK: Steps

    /// Starts the refresh `feature`'s window calls for, when the data read was last had from the server
    /// at `syncedAt` (nothing before the first sync: that one is the app's to start).
    func refreshIfStale(_ feature: String, syncedAt: Date?, contactId: String? = nil) {
        guard let syncedAt else { return }
        let age = clock.now().timeIntervalSince(syncedAt)
        switch feature {
        case Feature.list, Feature.circles:
            if age > FreshnessWindow.list { syncInBackground() }
        case Feature.detail:
            guard age > FreshnessWindow.detail, let contactId, mayRefresh(ContactsStore.refreshKey(contact: contactId)) else { return }
            Task { [self] in
                guard let lease = try? await currentLease() else { return }
                await refreshContact(contactId, lease: lease)
            }
        case Feature.profile:
            guard age > FreshnessWindow.detail, mayRefresh(ContactsStore.profileRefreshKey) else { return }
            Task { [self] in await refreshProfile() }
        default:
            return
        }
    }

    /// When the last background refresh of `key` started (`sync`, `contact:<id>`, `profile`,
    /// `enrichment:<id>`), for tests of the windows' boundaries.
    package func lastRefreshStarted(_ key: String) -> Date? {
        refreshAttempts.withLock { $0[key] }
    }

    /// Whether a background refresh of `key` may start now (none started within the retry interval).
    func mayRefresh(_ key: String) -> Bool {
        let now = clock.now()
        return refreshAttempts.withLock { attempts in
            if let last = attempts[key], now.timeIntervalSince(last) < FreshnessWindow.retry { return false }
            attempts[key] = now
            return true
        }
    }

    /// Fetches the contact and stores it (removed when the server has none); nothing on failure.
    /// Its age counts from when the fetch began, so a refresh never makes older data look newer.
    private func refreshContact(_ id: String, lease: UserDatabases.Lease) async {
        let asked = clock.now()
        guard let fetched = await fetchContact(id, for: lease.userId) else { return }
        let photo = (try? store.contact(userId: lease.userId, id: id))??.photoPath
        var server = ContactsStore.ServerValues()
        server.contacts[id] = fetched
        try? store.storeRefresh(server, keys: [ContactsStore.refreshKey(contact: id)], at: asked, lease: lease)
        // Gone from the server: its thumbnail goes with it, as a sync's removal takes it.
        if fetched == nil, let photo { try? images.clear(forKey: photo, user: lease.userId) }
    }

    /// Fetches the profile (with the circles and suggestions of the same answer) and stores it.
    private func refreshProfile() async {
        let asked = clock.now()
        guard let lease = try? await currentLease(), let summary = await fetchSummary(for: lease.userId) else { return }
        var server = ContactsStore.ServerValues()
        server.profile = summary.profile
        try? store.storeRefresh(server, keys: [ContactsStore.profileRefreshKey], at: asked, lease: lease)
    }

    /// The server's copy of a contact: `.some(nil)` when it has none (404), `nil` when it cannot be fetched.
    func fetchContact(_ id: String, for user: String) async -> Contact?? {
        var request = APIRequest<Contact>(path: PathSegments.path("contacts", id), feature: "contacts.detail", decode: Self.decodeEnvelope)
        request.owner = user  // stored as `user`'s: fetched with `user`'s token only
        do {
            return .some(try await rest.send(request, policy: .fetchIgnoringCacheCompletely).value)
        } catch {
            guard case .server(let answer) = error, answer.status == 404 else { return nil }
            return .some(nil)
        }
    }

    /// The circles, score, suggestions and profile in one answer, or `nil` when it cannot be fetched.
    func fetchSummary(for user: String) async -> ContactsSummary? {
        var request = APIRequest<ContactsSummary>(path: "/contacts/summary", feature: "contacts.sync", decode: Self.decodeEnvelope)
        request.owner = user  // the summary is stored as `user`'s
        return try? await rest.send(request, policy: .fetchIgnoringCacheCompletely).value
    }
}
