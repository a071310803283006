import CacheKit
import Foundation
import GRDB

/// The address book on the device: one SQLite file per user (GRDB, migrated from its first version)
/// holding the contacts, circles, score and suggestions, the sync's checkpoint and the changes made on the
/// device that the server has not confirmed yet, and one `SearchIndex` per open file, kept in step by the
/// transactions that store the contacts.
///
/// Writes go through a lease taken when the work began (``lease(for:)``): once a logout or an account
/// deletion cleared the files, a write of earlier work is refused and recreates nothing. Reads never
/// create a file: before the first sync (or after a clearing) they find nothing.
///
/// It is the kit's clearing participant (`contacts`): logout deletes every file (the server has it all),
/// account deletion the user's (``erase(userId:)``).
public final class ContactsStore: CacheClearingParticipant {
    /// The sync's name in checkpoints and reports.
    static let syncName = "contacts"
    let files: UserDatabases
    private let indexes = Locked<[String: SearchIndex]>([:])

    /// A store in `directory` (files are created on first use).
    ///
    /// - Parameters:
    ///   - directory: the store's folder, in the app's data directory.
    ///   - legacyDirectory: where an earlier version kept the folder (the caches): moved here when this one
    ///     does not exist yet, else deleted, so no user's file is left behind where a logout would not find it.
    public init(directory: URL, movingFrom legacyDirectory: URL? = nil) {
        if let legacyDirectory, legacyDirectory.standardizedFileURL != directory.standardizedFileURL,
            FileManager.default.fileExists(atPath: legacyDirectory.path)
        {
            if FileManager.default.fileExists(atPath: directory.path) {
                try? FileManager.default.removeItem(at: legacyDirectory)
            } else {
                // The owner's only (0700), as every folder a store makes: the umask's 0755 would let others list it.
                try? ProtectedFiles.createDirectory(directory.deletingLastPathComponent())
                if (try? FileManager.default.moveItem(at: legacyDirectory, to: directory)) == nil {
                    try? FileManager.default.removeItem(at: legacyDirectory)
                }
            }
        }
        files = UserDatabases(directory: directory, prefix: "contacts", migrator: Self.migrator)
    }

    /// The folder of the per-user files.
    public var directory: URL { files.directory }

    /// `contacts`.
    public var participantName: String { "contacts" }
    /// Kit data.
    public var category: CacheCategory { .data }

    /// A lease on the user's file as of now: what a write of work beginning now goes through.
    public func lease(for userId: String) -> UserDatabases.Lease {
        files.lease(for: userId)
    }

    // MARK: Reading

    /// A page of the user's contacts in name order (a row that no longer decodes is left out).
    public func contacts(userId: String, offset: Int = 0, limit: Int = 50) throws -> ContactsPage {
        try read(userId, else: ContactsPage(contacts: [], total: 0)) { db in try Self.contacts(db, offset: offset, limit: limit) }
    }

    /// One contact, if the device has it.
    public func contact(userId: String, id: String) throws -> Contact? {
        try read(userId, else: nil) { db in try Self.contact(db, id: id) }
    }

    /// The contacts with these ids, in that order (the ones the device has).
    public func contacts(userId: String, ids: [String]) throws -> [Contact] {
        try read(userId, else: []) { db in try Self.contacts(db, ids: ids) }
    }

    /// The user's circles.
    public func circles(userId: String) throws -> [ContactCircle] {
        try read(userId, else: []) { db in try Self.circles(db) }
    }

    /// The user's score, if synced.
    public func score(userId: String) throws -> ContactScore? {
        try document(userId: userId, name: "score")
    }

    /// The user's pending duplicate suggestions.
    public func suggestions(userId: String) throws -> [DuplicateSuggestion] {
        try read(userId, else: []) { db in try Self.suggestions(db) }
    }

    /// The user's profile with its shadow profiles, if synced.
    public func profile(userId: String) throws -> ContactProfile? {
        try document(userId: userId, name: "profile")
    }

    /// Where the contacts' sync stands for the user.
    public func checkpoint(userId: String) throws -> SyncCheckpoint? {
        try read(userId, else: nil) { db in try SyncCheckpoint.fetch(db, sync: Self.syncName) }
    }

    /// The user's search index, built from the user's file on first use and kept in step by the writes
    /// (empty while the device has no file for the user).
    public func searchIndex(userId: String) throws -> SearchIndex {
        guard let database = try files.existingDatabase(for: userId) else { return SearchIndex(name: "contacts.search") }
        return try index(of: database, userId: userId)
    }

    /// Where the queued change `id` (a ``ContactsChange/id``) stands for the user: pending, sent or refused;
    /// `nil` when the device does not know it.
    public func changeState(userId: String, id: String) throws -> ContactsChange.State? {
        try read(userId, else: nil) { db in try Self.state(ofChange: id, db) }
    }

    /// The index built for the user's open file, if any (never builds one: safe inside a read).
    func builtIndex(userId: String) -> SearchIndex? {
        indexes.withLock { $0[userId] }
    }

    private func document<T: Decodable>(userId: String, name: String) throws -> T? {
        try read(userId, else: nil) { db in try Self.document(name, db) }
    }

    static func document<T: Decodable>(_ name: String, _ db: Database) throws -> T? {
        try Data.fetchOne(db, sql: "SELECT body FROM document WHERE name = ?", arguments: [name])
            .map { try decoder.decode(T.self, from: $0) }
    }

    /// Reads the user's file, or returns `empty` when the device has none.
    func read<T>(_ userId: String, else empty: T, _ body: (Database) throws -> T) throws -> T {
        guard let database = try files.existingDatabase(for: userId) else { return empty }
        return try database.read(body)
    }

    // MARK: Writing

    /// Stores one page of a sync and its checkpoint in one transaction, the search index updated on commit:
    /// a full sync's first page marks every contact, and its last page deletes those no page brought
    /// (deleted on the server); an incremental page deletes what the server says was deleted. The changes
    /// made on the device and not yet confirmed are applied again over the page, so a sync never undoes
    /// them (a rename stays, an imported contact is not swept).
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    /// - Returns: the photo paths of the contacts it removed, whose thumbnails go with them (their enrichment
    ///   data went in the same transaction).
    @discardableResult
    func store(_ page: ContactsSyncPage, checkpoint: SyncCheckpoint, lease: UserDatabases.Lease) throws -> [String] {
        let (database, index) = try opened(lease)
        let removedPhotos = try database.write { db -> [String] in
            if page.startsFullSync { try db.execute(sql: "UPDATE contact SET seen = 0") }
            for contact in page.contacts {
                try ContactRow(contact, seen: true).write(db)
                index.upsert(contact.searchDocument, in: db)
            }
            try Self.forgetAdded(Set(page.contacts.map(\.id)), db)
            var removed = page.deleted
            if checkpoint.mode == .full, page.isLast { removed += try String.fetchAll(db, sql: "SELECT id FROM contact WHERE seen = 0") }
            let photos = try ContactRow.fetchAll(db, keys: removed).compactMap { try? $0.contact().photoPath }
            for id in removed {
                try ContactRow.deleteOne(db, key: id)
                try db.execute(sql: "DELETE FROM document WHERE name = ?", arguments: ["enrichment:\(id)"])
                index.remove(id: id, in: db)
            }
            if let circles = page.circles { try Self.save(circles, as: "circles", db) }
            if let score = page.score { try Self.save(score, as: "score", db) }
            if let suggestions = page.suggestions { try Self.save(suggestions, as: "suggestions", db) }
            if let profile = page.profile { try Self.save(profile, as: "profile", db) }
            if let queue = page.queue {
                let sent = queue.keptBefore.subtracting(queue.stillQueued)
                var edited: [String] = []
                for key in sent { edited += try Self.forgetSent(key: key, db)?.membershipCircles ?? [] }
                // A page with the summary brought the server's counts; without it, keep the device's.
                if page.circles == nil { try Self.keepMemberCounts(of: edited, db) }
            }
            try Self.reapplyPendingChanges(db, index: index)
            try checkpoint.save(db, sync: Self.syncName)
            return photos
        }
        // A completed run folds its write-ahead log into the file and empties it: 10,000 contacts then take
        // the file's 3 MB on disk, not 3 MB more of log. Its pages were indexed while the next was fetched; the
        // run ends with the index current.
        if page.isLast {
            _ = try database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            index.applyCommittedChanges()
        }
        return removedPhotos
    }

    static func save(_ value: some Encodable, as name: String, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO document (name, body) VALUES (?, ?)", arguments: [name, try encoder.encode(value)])
    }

    // MARK: Clearing

    /// Deletes one user's file and search index (account deletion), and the key naming the files once no
    /// file is left.
    public func erase(userId: String) throws {
        indexes.withLock { $0.removeValue(forKey: userId) }?.clearAll()
        try files.erase(userId: userId)
        indexes.withLock { $0.removeValue(forKey: userId) }?.clearAll()
    }

    /// Deletes every user's file and search index (logout: the server has it all).
    public func clearAll() async throws {
        dropIndexes()
        try files.removeAll()
        // A write that held its database while the files were cleared may have rebuilt an index meanwhile.
        dropIndexes()
    }

    private func dropIndexes() {
        for index in indexes.withLock({ indexes in
            defer { indexes = [:] }
            return Array(indexes.values)
        }) { index.clearAll() }
    }

    /// Contacts are the user's, not an account's.
    public func clear(forAccountId accountId: String) async throws {}
    /// No keyed entries.
    public func clear(forKey key: String) async throws {}

    /// Contacts held over every open file, and every byte the kit holds on disk (the files, their logs and
    /// the key naming them).
    public func statistics() async throws -> [CacheStoreStatistics] {
        var usage = CacheStoreUsage(count: 0, bytes: 0)
        for database in files.openDatabases {
            usage.count += try await database.read { db in try ContactRow.fetchCount(db) }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            let size =
                try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name, isDirectory: false).path)[.size]
                as? Int
            usage.bytes += size ?? 0
        }
        return [
            CacheStoreStatistics(
                participant: participantName, category: category, counts: CacheStatistics(store: "sqlite", feature: participantName),
                usage: usage)
        ]
    }

    // MARK: Files

    /// The user's file, named by a keyed hash of the user id (this installation's key).
    public func fileURL(for userId: String) -> URL {
        files.fileURL(for: userId)
    }

    /// The lease's database and search index, the index built from the file on first use.
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    func opened(_ lease: UserDatabases.Lease) throws -> (database: UserDatabase, index: SearchIndex) {
        let database = try files.database(for: lease)
        return (database, try index(of: database, userId: lease.userId))
    }

    private func index(of database: UserDatabase, userId: String) throws -> SearchIndex {
        if let index = indexes.withLock({ $0[userId] }) { return index }
        // A clearing before this lease closed `database`, so the read below fails; one after it moves the lease.
        let lease = files.lease(for: userId)
        let index = SearchIndex(name: "contacts.search")
        index.rebuild(try database.read { db in try ContactRow.fetchAll(db).compactMap { try? $0.contact().searchDocument } })
        return keep(index, builtUnder: lease)
    }

    /// Keeps `index`, built from the user's file under `lease`, as the user's (or the one kept meanwhile), unless
    /// the files were cleared since: a logout's drops may have passed while it was built, and it would hold the
    /// user's contacts in memory after the logout, stale at the next sign-in.
    func keep(_ index: SearchIndex, builtUnder lease: UserDatabases.Lease) -> SearchIndex {
        let kept = indexes.withLock { indexes in
            if let existing = indexes[lease.userId] { return existing }
            indexes[lease.userId] = index
            return index
        }
        if files.lease(for: lease.userId) != lease {
            indexes.withLock { indexes in if indexes[lease.userId] === kept { indexes.removeValue(forKey: lease.userId) } }
            kept.clearAll()
        }
        return kept
    }
}
