import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import GRDB
import HTTPTypes

/// The contacts app's use cases, offline first: the address book, circles, score and suggestions are read
/// from the device (``store``), kept up to date by ``sync`` (full, then incremental, and in the app's
/// background refresh), searched locally, and changed through the app's `MutationQueue` ("Will sync when
/// online"). Thumbnails go through the app's `ImageCache`; full-size photos are never stored.
///
/// ```swift
/// let contacts = ContactsClient(rest: rest, queue: queue, environment: environment, images: images)
/// await contacts.syncNow()                                          // full on first launch, then incremental
/// let page = try await contacts.contacts(offset: 0, limit: 50)      // from the device, works offline
/// let found = try await contacts.search("zoe")                      // finds Zoë, offline too
/// try await contacts.rename(contactId: "c1", to: "Ana María")       // shown at once, sent when online
/// ```
public final class ContactsClient: Sendable {
    /// The feature names: the keys of timeouts, stale labels and metrics.
    public enum Feature {
        /// The contacts list: fresh 24 h, no label (a stale list refreshes silently).
        public static let list = "contacts.list"
        /// A contact's detail: fresh 1 h, "Last updated X ago" past 24 h.
        public static let detail = "contacts.detail"
        /// Circles: fresh 24 h, no label.
        public static let circles = "contacts.circles"
        /// The score: fresh 24 h, "Estimated · last updated X ago" past 24 h of its `computedAt`.
        public static let score = "contacts.score"
        /// Duplicate suggestions: refreshed by each sync.
        public static let suggestions = "contacts.suggestions"
        /// The user's profile and shadow profiles: fresh 1 h, no label.
        public static let profile = "contacts.profile"
    }

    /// The changes this kit queues, and the one it never queues.
    public enum Mutation {
        /// A contact's new name.
        public static let edit = "EditContact"
        /// Two contacts confirmed as one person.
        public static let resolveSuggestion = "ResolveDuplicate"
        /// A suggestion dismissed.
        public static let dismissSuggestion = "DismissDuplicate"
        /// Subscribing to premium: requires a connection, never queued.
        public static let subscribe = "SubscribePremium"
        /// Contacts imported from the device's address book.
        public static let importContacts = "ImportContacts"
        /// A circle created.
        public static let createCircle = "CreateCircle"
        /// A circle renamed, or its access policies changed.
        public static let editCircle = "EditCircle"
        /// A circle deleted.
        public static let deleteCircle = "DeleteCircle"
        /// A dispute of the score.
        public static let fileDispute = "FileDispute"
        /// Another shadow profile made active.
        public static let switchProfile = "SwitchProfile"
        /// A contact created on the device.
        public static let createContact = "CreateContact"
        /// A contact deleted.
        public static let deleteContact = "DeleteContact"
        /// A contact added to a circle or removed from one.
        public static let editMembers = "EditCircleMembers"

        /// Every change the kit queues.
        public static let queueable = [
            edit, resolveSuggestion, dismissSuggestion, importContacts, createCircle, editCircle, deleteCircle, fileDispute,
            switchProfile, createContact, deleteContact, editMembers,
        ]
    }

    /// The stale labels of the features, as the kit declares them.
    public static let staleIndicators: [String: StaleIndicator] = [
        Feature.detail: .lastUpdated(after: 86_400), Feature.score: .estimated(after: 86_400),
    ]

    /// The address book on the device.
    public let store: ContactsStore
    /// The address book's sync, registered for the app's `BackgroundSync`.
    public let sync: SyncRunner
    let rest: RESTClient
    let queue: MutationQueue?
    let images: ImageCache
    /// The purchase's idempotency key, kept until its outcome is known.
    let intents: IntentKeys
    let clock: any CacheClock
    let environment: CacheEnvironment
    let observers = Locked<[UUID: AsyncStream<ContactsEvent>.Continuation]>([:])
    let follower = Locked<Task<Void, Never>?>(nil)
    /// When each background refresh last started (``FreshnessWindow/retry``).
    let refreshAttempts = Locked<[String: Date]>([:])

    /// Contacts a request of an import carries.
    let importChunk: Int

    /// Creates the use cases.
    ///
    /// - Parameters:
    ///   - rest: the app's REST client (signed in as the user).
    ///   - queue: where changes wait while offline; `nil` refuses changes with ``ContactsError/noQueue``.
    ///   - environment: the app's clock, logger and folders (the address book lives in `contacts/` under its
    ///     data directory, Application Support; photos go through `images` to the caches).
    ///   - images: the app's image cache, for thumbnails.
    ///   - syncPageSize: contacts a page of the sync (1 to 500).
    ///   - importChunkSize: contacts a request of an import (1 to ``importChunkSize``, the server's most).
    public init(
        rest: RESTClient, queue: MutationQueue?, environment: CacheEnvironment, images: ImageCache, syncPageSize: Int = 500,
        importChunkSize: Int = ContactsClient.importChunkSize
    ) {
        self.importChunk = min(max(importChunkSize, 1), Self.importChunkSize)
        self.rest = rest
        self.queue = queue
        self.images = images
        self.environment = environment
        clock = environment.clock
        // The address book is the user's data, not a cache the system may purge; only photos go to the caches.
        store = ContactsStore(
            directory: environment.dataDirectory.appendingPathComponent("contacts", isDirectory: true),
            movingFrom: environment.cachesDirectory.appendingPathComponent("contacts", isDirectory: true))
        intents = IntentKeys(directory: environment.dataDirectory.appendingPathComponent("intents/contacts", isDirectory: true))
        sync = SyncRunner(
            ContactsSync(rest: rest, store: store, queue: queue, images: images, pageSize: min(max(syncPageSize, 1), 500)),
            clock: environment.clock,
            logger: environment.logger)
    }

    // MARK: Sync

    /// Brings the device up to date: a full sync on first launch and after 30 days without one,
    /// otherwise only what changed. Joins a sync already running; cancelling the caller's task stops its
    /// wait, and the sync itself only when no other caller waits. Never throws: the report says how it ended.
    ///
    /// - Parameter deadline: when to stop waiting (by the app's clock); `nil` for no limit.
    @discardableResult
    public func syncNow(until deadline: Date? = nil) async -> SyncReport {
        await sync.run(until: deadline)
    }

    // MARK: Reading (from the device, online or not)

    /// A page of the contacts, in name order.
    public func contacts(offset: Int = 0, limit: Int = 50) async throws(ContactsError) -> ContactsReading<ContactsPage> {
        let reading = try reading(Feature.list, try await currentUser(), empty: ContactsPage(contacts: [], total: 0)) { db in
            try ContactsStore.contacts(db, offset: offset, limit: limit)
        }
        refreshIfStale(Feature.list, syncedAt: reading.syncedAt)
        return reading
    }

    /// One contact, `nil` when the device does not have it; labelled "Last updated X ago" past 24 h.
    public func contact(id: String) async throws(ContactsError) -> ContactsReading<Contact?> {
        let reading = try reading(Feature.detail, try await currentUser(), empty: nil, refreshed: ContactsStore.refreshKey(contact: id)) {
            db in try ContactsStore.contact(db, id: id)
        }
        refreshIfStale(Feature.detail, syncedAt: reading.syncedAt, contactId: id)
        return reading
    }

    /// The circles.
    public func circles() async throws(ContactsError) -> ContactsReading<[ContactCircle]> {
        let reading = try reading(Feature.circles, try await currentUser(), empty: []) { db in try ContactsStore.circles(db) }
        refreshIfStale(Feature.circles, syncedAt: reading.syncedAt)
        return reading
    }

    /// The contacts in a circle, in name order (offline too).
    public func members(ofCircle circleId: String) async throws(ContactsError) -> ContactsReading<[Contact]> {
        try reading(Feature.circles, try await currentUser(), empty: []) { db in try ContactsStore.members(db, circleId: circleId) }
    }

    /// The score with its 30-day history; labelled "Estimated · last updated X ago" 24 h after the server computed it.
    public func score() async throws(ContactsError) -> ContactsReading<ContactScore?> {
        try reading(Feature.score, try await currentUser(), empty: nil, datedBy: Self.computedAt) { db in
            try ContactsStore.document("score", db)
        }
    }

    /// The pending duplicate suggestions.
    public func suggestions() async throws(ContactsError) -> ContactsReading<[DuplicateSuggestion]> {
        try reading(Feature.suggestions, try await currentUser(), empty: []) { db in try ContactsStore.suggestions(db) }
    }

    /// The user's profile with the shadow profiles they can switch between.
    public func profile() async throws(ContactsError) -> ContactsReading<ContactProfile?> {
        let reading = try reading(Feature.profile, try await currentUser(), empty: nil, refreshed: ContactsStore.profileRefreshKey) {
            db -> ContactProfile? in try ContactsStore.document("profile", db)
        }
        refreshIfStale(Feature.profile, syncedAt: reading.syncedAt)
        return reading
    }

    /// The contacts matching `query` on the device, best first: a prefix of any word of the name or an
    /// e-mail, whatever the case and accents, or the digits of a phone number whatever its formatting.
    public func search(_ query: String, offset: Int = 0, limit: Int = 20) async throws(ContactsError) -> ContactsPage {
        let user = try await currentUser()
        return try storage {
            let found = try store.searchIndex(userId: user).search(query, offset: offset, limit: limit)
            return ContactsPage(contacts: try store.contacts(userId: user, ids: found.ids), total: found.total)
        }
    }

    // MARK: Steps

    private func reading<T: Sendable>(
        _ feature: String, _ user: String, empty: T, refreshed: String? = nil, datedBy: (T) -> Date? = { _ in nil },
        _ read: (Database) throws -> T
    ) throws(ContactsError) -> ContactsReading<T> {
        try storage {
            try store.read(user, else: ContactsReading(value: empty, syncedAt: nil, staleLabel: nil)) { db in
                try Self.reading(feature, db, now: clock.now(), refreshed: refreshed, datedBy: datedBy, read)
            }
        }
    }

    /// The value `read` reads, with when the device last had it from the server (the last completed sync,
    /// or a later refresh of the record `refreshed`) and the label the feature's age calls for, that age
    /// measured from the date `datedBy` gives the value when it gives one (the score's `computedAt`).
    static func reading<T>(
        _ feature: String, _ db: Database, now: Date, refreshed: String? = nil, datedBy: (T) -> Date? = { _ in nil },
        _ read: (Database) throws -> T
    ) throws -> ContactsReading<T> {
        let value = try read(db)
        let synced = try SyncCheckpoint.fetch(db, sync: ContactsStore.syncName)?.lastCompletedAt
        let syncedAt = [synced, try refreshed.flatMap { try ContactsStore.refreshedAt($0, db) }].compactMap { $0 }.max()
        let measuredFrom = datedBy(value) ?? syncedAt
        let label = measuredFrom.flatMap { date in staleIndicators[feature]?.staleLabel(for: Freshness(.stale, storedAt: date, now: now)) }
        return ContactsReading(value: value, syncedAt: syncedAt, staleLabel: label)
    }

    /// The score's age counts from when the server computed it, as the specification's indicators say.
    @Sendable static func computedAt(_ score: ContactScore?) -> Date? {
        score?.computedAt
    }

    func storage<T>(_ body: () throws -> T) throws(ContactsError) -> T {
        do {
            return try body()
        } catch {
            throw .storage(reason: "\(error)")
        }
    }

    /// The signed-in user's id (whose file the store reads).
    /// - Throws: ``ContactsError/signedOut``.
    public func currentUserId() async throws(ContactsError) -> String {
        try await Self.currentUser(of: rest)
    }

    func currentUser() async throws(ContactsError) -> String {
        try await Self.currentUser(of: rest)
    }

    /// A lease on the signed-in user's file: what a change begun now writes through. The user is read again
    /// after the lease is taken, so a logout between the two never leaves a lease that recreates a file.
    func currentLease() async throws(ContactsError) -> UserDatabases.Lease {
        let lease = store.lease(for: try await currentUser())
        guard try await currentUser() == lease.userId else { throw .signedOut }
        return lease
    }

    static func currentUser(of rest: RESTClient) async throws(ContactsError) -> String {
        guard let user = await rest.configuration.tokenProvider?.currentCredentials()?.userId else { throw .signedOut }
        return user
    }
}

extension ContactsClient {
    /// Account deletion: the user's file, search index, thumbnails and purchase key go (`nil`, signed out:
    /// every user's purchase keys; the address books and thumbnails went with the logout's clearing).
    public func erase(userId: String?) throws {
        try intents.erase(userId: userId)
        guard let userId else { return }
        try store.erase(userId: userId)
        try images.clear(userId: userId)
    }
}
