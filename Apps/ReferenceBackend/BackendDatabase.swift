import CacheKit
import Foundation
import GRDB

/// A funnel of the catalog, as stored.
public struct Funnel: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "funnel"

    /// Stable identifier.
    public var id: String
    /// URL name, unique.
    public var slug: String
    /// Display title; the catalog sorts by it, case-insensitively, then by slug.
    public var title: String
    /// A sentence about it.
    public var description: String
    /// Its pillar, or `nil` for an uncategorized funnel.
    public var pillarId: String?
    /// Whether it is offered (`?active=true` keeps only these).
    public var isActive: Bool
    /// Who may take it: `free` or `premium` (`?tier=` keeps only one).
    public var tier: String
    /// Bumped at every change.
    public var version: Int
    /// When it last changed.
    public var updatedAt: Date
}

/// A pillar the funnels are grouped under.
public struct Pillar: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "pillar"

    /// Stable identifier.
    public var id: String
    /// Display title.
    public var title: String
    /// Display order.
    public var position: Int
}

/// The backend's data in SQLite (GRDB), with migrations, seeded with deterministic demo data: a few
/// hundred funnels in pillars (some inactive, some uncategorized, some sharing a title, so the slug
/// orders them), and users with their accounts and transactions.
public final class BackendDatabase: Sendable {
    let queue: DatabaseQueue
    let now: @Sendable () -> Date
    /// A stored password nobody knows, checked for e-mails nobody has.
    let decoy: (salt: String, hash: String)

    /// The catalog's version and last change: the ETag's `v<version>` and its timestamp.
    public struct Revision: Sendable, Hashable {
        /// Bumped by every change, deletions included.
        public var version: Int
        /// When the catalog last changed (`Last-Modified`).
        public var modifiedAt: Date
    }

    /// Opens (creating and seeding if new) the database at `url`.
    /// - Parameters:
    ///   - funnelCount: how many funnels a new database is seeded with.
    ///   - now: the clock stamping changes.
    ///   - passwordWork: what one password check costs (scrypt), for the users a new database is seeded with.
    public init(
        url: URL, funnelCount: Int = 300, now: @escaping @Sendable () -> Date = Date.init, passwordWork: PasswordWork = .standard
    ) throws {
        // Password hashes, chats and contacts: a missing folder is created 0700 (an existing one, such as
        // the working directory of `mib serve`, is left as it is); a new file is created 0600 before SQLite
        // opens it (no moment at the umask's mode for another local user to open it in), and an existing one
        // is narrowed to 0600, so its journal and WAL files, which SQLite creates with the database's mode,
        // are 0600 as well.
        let folder = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let created = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        if created >= 0 { close(created) }
        let queue = try DatabaseQueue(path: url.path)
        try ProtectedFiles.protectFile(url)
        self.now = now
        try Self.migrator(passwordWork: passwordWork).migrate(queue)
        try queue.write { db in
            if try Funnel.fetchCount(db) == 0 { try Self.seed(db, funnelCount: funnelCount) }
            if try Row.fetchOne(db, sql: "SELECT COUNT(*) FROM user")?[0] == 0 {
                try Self.seedUsers(db, work: passwordWork)
                try Self.seedChats(db)
            }
        }
        // An unknown e-mail is checked against this, so it costs the same work as a known one: the work the
        // stored hashes were made with, not this run's (a database seeded at another cost would otherwise
        // tell which e-mails exist by the time a sign-in takes).
        let stored = try queue.read { db in try String.fetchOne(db, sql: "SELECT passwordHash FROM user ORDER BY rowid LIMIT 1") }
        decoy = try PasswordHash.make(UUID().uuidString, work: stored.flatMap(PasswordHash.work(of:)) ?? passwordWork)
        self.queue = queue
    }

    /// January 13, 2026, 14:24:29 UTC: the contract's example timestamp, where the demo data starts.
    static let epoch = Date(timeIntervalSince1970: 1_768_314_269)

    private static func seed(_ db: Database, funnelCount: Int) throws {
        let pillars = ["Stress & Resilience", "Sleep", "Focus", "Relationships", "Nutrition", "Movement"]
        for (index, title) in pillars.enumerated() {
            try Pillar(id: "p\(index + 1)", title: title, position: index).insert(db)
        }
        let topics = [
            "Burnout", "Stress", "Anxiety", "Sleep Quality", "Insomnia", "Attention", "Procrastination",
            "Mindfulness", "Communication", "Conflict", "Diet", "Hydration", "Posture", "Endurance",
            "Mobility", "Recovery", "Energy", "Mood", "Habits", "Resilience",
        ]
        let kinds = ["Assessment", "Check-in", "Screening", "Profile", "Review"]
        var latest = epoch
        for index in 0..<funnelCount {
            let topic = topics[index % topics.count]
            let kind = kinds[(index / topics.count) % kinds.count]
            // Every 50th funnel repeats a title with another slug, and titles vary in case.
            let round = index / (topics.count * kinds.count)
            var title = "\(topic) \(kind)" + (round > 0 ? " \(round + 1)" : "")
            if index % 50 == 49 { title = "\(topics[0]) \(kinds[0])" }
            if index % 13 == 0 { title = title.lowercased() }
            let updatedAt = epoch.addingTimeInterval(Double(index) * 60)
            latest = max(latest, updatedAt)
            try Funnel(
                id: "f\(index + 1)", slug: "funnel-\(index + 1)", title: title,
                description: "How is your \(topic.lowercased())? A short \(kind.lowercased()).",
                pillarId: index % 15 == 7 ? nil : "p\(index % pillars.count + 1)",
                isActive: index % 7 != 3, tier: index % 4 == 0 ? "premium" : "free", version: 1,
                updatedAt: updatedAt
            ).insert(db)
        }
        try db.execute(sql: "INSERT INTO catalog_meta (id, version, modifiedAt) VALUES (1, 1, ?)", arguments: [latest])
    }

    // MARK: Reading

    /// The catalog's revision.
    public func revision() throws -> Revision {
        try queue.read { db in try Self.revision(db) }
    }

    private static func revision(_ db: Database) throws -> Revision {
        let row = try Row.fetchOne(db, sql: "SELECT version, modifiedAt FROM catalog_meta WHERE id = 1")
        return Revision(version: row?["version"] ?? 1, modifiedAt: row?["modifiedAt"] ?? epoch)
    }

    /// Up to `limit` funnels in catalog order after `after` (`(title, slug)` of the previous page's
    /// last item), keeping only active ones and one tier when asked, and whether more follow.
    public func page(after: (title: String, slug: String)?, limit: Int, activeOnly: Bool, tier: String? = nil) throws
        -> (funnels: [Funnel], hasMore: Bool)
    {
        try queue.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if activeOnly { conditions.append("isActive = 1") }
            if let tier {
                conditions.append("tier = ?")
                arguments += [tier]
            }
            if let after {
                conditions.append("(title > ? COLLATE NOCASE OR (title = ? COLLATE NOCASE AND slug > ?))")
                arguments += [after.title, after.title, after.slug]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            arguments += [limit + 1]
            let funnels = try Funnel.fetchAll(
                db,
                sql: """
                    SELECT * FROM funnel \(filter) ORDER BY title COLLATE NOCASE, slug LIMIT ?
                    """, arguments: arguments)
            return (Array(funnels.prefix(limit)), funnels.count > limit)
        }
    }

    /// The whole catalog in order (for checks and the demo).
    public func allFunnels(activeOnly: Bool = false, tier: String? = nil) throws -> [Funnel] {
        try queue.read { db in
            try Funnel.fetchAll(db, sql: "SELECT * FROM funnel ORDER BY title COLLATE NOCASE, slug")
                .filter { (!activeOnly || $0.isActive) && (tier == nil || $0.tier == tier) }
        }
    }

    /// Whether a funnel with exactly this title and slug exists (a cursor's item).
    public func contains(title: String, slug: String) throws -> Bool {
        try queue.read { db in
            try Funnel.filter(Column("slug") == slug && Column("title") == title).fetchCount(db) > 0
        }
    }

    /// The funnel with this slug.
    public func funnel(slug: String) throws -> Funnel? {
        try queue.read { db in try Funnel.filter(Column("slug") == slug).fetchOne(db) }
    }

    /// Every pillar, in display order.
    public func pillars() throws -> [Pillar] {
        try queue.read { db in try Pillar.order(Column("position")).fetchAll(db) }
    }

    // MARK: Changing (the admin routes)

    /// Adds a funnel; bumps the catalog's revision.
    public func add(slug: String, title: String, pillarId: String?, isActive: Bool = true, tier: String = "free") throws
        -> Funnel
    {
        try queue.write { db in
            let funnel = Funnel(
                id: "f-\(slug)", slug: slug, title: title, description: "Added by an administrator.",
                pillarId: pillarId, isActive: isActive, tier: tier, version: 1, updatedAt: now())
            try funnel.insert(db)
            try bump(db)
            return funnel
        }
    }

    /// Changes a funnel's title or activity; bumps its version and the catalog's revision.
    /// - Returns: the changed funnel, or `nil` when no funnel has this slug.
    public func update(slug: String, title: String?, isActive: Bool?) throws -> Funnel? {
        try queue.write { db in
            guard var funnel = try Funnel.filter(Column("slug") == slug).fetchOne(db) else { return nil }
            if let title { funnel.title = title }
            if let isActive { funnel.isActive = isActive }
            funnel.version += 1
            funnel.updatedAt = now()
            try funnel.update(db)
            try bump(db)
            return funnel
        }
    }

    /// Deletes a funnel; bumps the catalog's revision. Returns whether it existed.
    public func delete(slug: String) throws -> Bool {
        try queue.write { db in
            let deleted = try Funnel.filter(Column("slug") == slug).deleteAll(db) > 0
            if deleted { try bump(db) }
            return deleted
        }
    }

    private func bump(_ db: Database) throws {
        let current = try Self.revision(db)
        // Never backwards, so If-Modified-Since stays meaningful even when a clock is wrong.
        let modifiedAt = max(now(), current.modifiedAt.addingTimeInterval(1))
        try db.execute(sql: "UPDATE catalog_meta SET version = version + 1, modifiedAt = ? WHERE id = 1", arguments: [modifiedAt])
    }
}
