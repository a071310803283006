import CacheKit
import Foundation
import GRDB

// Reads that update themselves: each read's observing form yields the value now, then a new one after every
// change that touches it (a sync page, an offline change, a refusal undone). A logout or an account deletion
// yields the empty value and ends it: an observation never outlives its user's data.
extension ContactsClient {
    /// What an observing read yields: the value with its sync date and label, after each change. It ends
    /// (after an empty value) when the user's data is cleared, and with a ``ContactsError`` when the
    /// device's file cannot be read.
    public typealias Updates<Value: Sendable> = AsyncThrowingStream<ContactsReading<Value>, any Error>

    /// A page of the contacts in name order, as it changes.
    ///
    /// ```swift
    /// for try await reading in try await contacts.observeContacts(limit: 50) {
    ///     render(reading.value.contacts)         // each with hasPendingChange for "Will sync when online"
    /// }
    /// ```
    public func observeContacts(offset: Int = 0, limit: Int = 50) async throws(ContactsError) -> Updates<ContactsPage> {
        observing(Feature.list, try await currentLease(), empty: ContactsPage(contacts: [], total: 0)) { db in
            try ContactsStore.contacts(db, offset: offset, limit: limit)
        }
    }

    /// One contact as it changes (`nil` while the device does not have it).
    public func observeContact(id: String) async throws(ContactsError) -> Updates<Contact?> {
        observing(Feature.detail, try await currentLease(), empty: nil, refreshed: ContactsStore.refreshKey(contact: id), contactId: id) {
            db in
            try ContactsStore.contact(db, id: id)
        }
    }

    /// The circles as they change.
    public func observeCircles() async throws(ContactsError) -> Updates<[ContactCircle]> {
        observing(Feature.circles, try await currentLease(), empty: []) { db in try ContactsStore.circles(db) }
    }

    /// The members of a circle as they change.
    public func observeMembers(ofCircle circleId: String) async throws(ContactsError) -> Updates<[Contact]> {
        observing(Feature.circles, try await currentLease(), empty: []) { db in try ContactsStore.members(db, circleId: circleId) }
    }

    /// The score with its history as it changes.
    public func observeScore() async throws(ContactsError) -> Updates<ContactScore?> {
        observing(Feature.score, try await currentLease(), empty: nil, datedBy: Self.computedAt) { db in
            try ContactsStore.document("score", db)
        }
    }

    /// The pending duplicate suggestions as they change.
    public func observeSuggestions() async throws(ContactsError) -> Updates<[DuplicateSuggestion]> {
        observing(Feature.suggestions, try await currentLease(), empty: []) { db in try ContactsStore.suggestions(db) }
    }

    /// The profile as it changes.
    public func observeProfile() async throws(ContactsError) -> Updates<ContactProfile?> {
        observing(Feature.profile, try await currentLease(), empty: nil, refreshed: ContactsStore.profileRefreshKey) {
            db -> ContactProfile? in try ContactsStore.document("profile", db)
        }
    }

    /// The contacts matching `query` (as ``search(_:offset:limit:)`` finds them) as the address book changes:
    /// each value read after the commit that changed it, the search index included.
    public func observeSearch(_ query: String, offset: Int = 0, limit: Int = 20) async throws(ContactsError) -> Updates<ContactsPage> {
        let lease = try await currentLease()
        let user = lease.userId
        // The index is built before the first read: a read inside the file's queue cannot build it.
        let contactsStore = store
        _ = try storage { try contactsStore.searchIndex(userId: user) }
        return observing(Feature.list, lease, empty: ContactsPage(contacts: [], total: 0)) { db in
            guard let index = contactsStore.builtIndex(userId: user) else { return ContactsPage(contacts: [], total: 0) }
            let found = index.search(query, offset: offset, limit: limit)
            return ContactsPage(contacts: try ContactsStore.contacts(db, ids: found.ids), total: found.total)
        }
    }

    /// Where a queued change stands: pending, sent or refused; `nil` when the device no longer knows it (its
    /// data cleared since).
    public func changeState(_ change: ContactsChange) async throws(ContactsError) -> ContactsChange.State? {
        let user = try await currentUser()
        return try storage { try store.changeState(userId: user, id: change.id) }
    }

    /// Where a queued change stands, as it moves (pending, then sent or refused).
    public func observeChange(_ change: ContactsChange) async throws(ContactsError) -> AsyncThrowingStream<ContactsChange.State?, any Error>
    {
        return store.files.observe(lease: try await currentLease(), tables: ["pending_change", "settled_change"], empty: nil) { db in
            try ContactsStore.state(ofChange: change.id, db)
        }
    }

    /// The observation, and the refresh the data's age calls for when it starts (as a one-shot read's).
    private func observing<T: Sendable & Equatable>(
        _ feature: String, _ lease: UserDatabases.Lease, empty: T, refreshed: String? = nil, contactId: String? = nil,
        datedBy: @escaping @Sendable (T) -> Date? = { _ in nil }, _ read: @escaping @Sendable (Database) throws -> T
    ) -> Updates<T> {
        let clock = self.clock
        let syncedAt = try? store.read(lease.userId, else: nil) { db in
            try Self.reading(feature, db, now: clock.now(), refreshed: refreshed) { _ in () }.syncedAt
        }
        refreshIfStale(feature, syncedAt: syncedAt ?? nil, contactId: contactId)
        return store.files.observe(lease: lease, empty: ContactsReading(value: empty, syncedAt: nil, staleLabel: nil)) { db in
            try Self.reading(feature, db, now: clock.now(), refreshed: refreshed, datedBy: datedBy, read)
        }
    }
}
