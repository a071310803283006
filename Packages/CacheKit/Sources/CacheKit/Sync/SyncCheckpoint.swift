import Foundation
import GRDB

/// Where a source's sync stands for one owner: stored by the kit with each page, in the same
/// transaction (``save(_:sync:)``), and read back by ``SyncRunner`` to decide the next run.
public struct SyncCheckpoint: Sendable, Hashable, Codable {
    /// 30 days: how long an incremental sync is trusted after the last completed one. A server keeps
    /// the deletions and changes an incremental sync asks for (its change log) for a bounded time;
    /// 30 days matches the score history the app shows and the retention such logs commonly have.
    /// Past it, a full sync is the only way to be sure nothing deleted on the server stays on the
    /// device. A source overrides ``SyncSource/maximumOfflineDuration`` when its server keeps less.
    public static let defaultMaximumOfflineDuration: TimeInterval = 30 * 24 * 3_600

    /// The run in progress, or the last one.
    public var mode: SyncMode
    /// Where the run in progress continues; `nil` once it completed.
    public var pageCursor: String?
    /// What the next incremental sync asks changes since. While an incremental run is in progress it
    /// stays the token that run started from, so a resumed run asks exactly what it had not stored yet
    /// (changes after its starting token, from its page cursor on).
    public var changesToken: String?
    /// The token the run in progress adopts as ``changesToken`` when it reaches its last page (the one
    /// its pages carried); `nil` when no run is in progress.
    public var pendingChangesToken: String?
    /// When a run (full or incremental) last reached its last page.
    public var lastCompletedAt: Date?
    /// When a full sync last completed.
    public var lastFullSyncAt: Date?

    /// Creates a checkpoint.
    public init(
        mode: SyncMode, pageCursor: String? = nil, changesToken: String? = nil, pendingChangesToken: String? = nil,
        lastCompletedAt: Date? = nil, lastFullSyncAt: Date? = nil
    ) {
        self.mode = mode
        self.pageCursor = pageCursor
        self.changesToken = changesToken
        self.pendingChangesToken = pendingChangesToken
        self.lastCompletedAt = lastCompletedAt
        self.lastFullSyncAt = lastFullSyncAt
    }

    /// Whether a run stopped part way and continues from ``pageCursor``.
    public var isInProgress: Bool { pageCursor != nil }

    /// The first page the next run asks for, given the last checkpoint (`nil` before the first run):
    /// - none yet: a full sync from the start;
    /// - a run stopped part way: that run, from where it stopped (an incremental one only while the
    ///   last completed sync is recent enough, else a full sync from the start);
    /// - the last completed sync older than `maximumOfflineDuration`, or no changes token: a full sync;
    /// - otherwise an incremental sync since ``changesToken``.
    public static func nextRequest(after checkpoint: SyncCheckpoint?, now: Date, maximumOfflineDuration: TimeInterval)
        -> SyncPageRequest
    {
        let full = SyncPageRequest(mode: .full, pageCursor: nil, changesToken: nil)
        guard let checkpoint else { return full }
        if checkpoint.isInProgress, checkpoint.mode == .full {
            return SyncPageRequest(mode: .full, pageCursor: checkpoint.pageCursor, changesToken: nil)
        }
        guard let completed = checkpoint.lastCompletedAt, let token = checkpoint.changesToken,
            now.timeIntervalSince(completed) <= maximumOfflineDuration
        else { return full }
        return SyncPageRequest(mode: .incremental, pageCursor: checkpoint.pageCursor, changesToken: token)
    }

    /// The checkpoint to store with `page`, fetched for `request`, at `now`. The page's token is held as
    /// ``pendingChangesToken`` until the run's last page, and only then becomes ``changesToken``: a run
    /// cut part way resumes from the token it started with, never from one its first page carried.
    public func advanced<Content>(by page: SyncPage<Content>, for request: SyncPageRequest, at now: Date) -> SyncCheckpoint {
        var next = self
        next.mode = request.mode
        next.pageCursor = page.nextPageCursor
        if request.isFirstPage { next.pendingChangesToken = nil }
        if let token = page.changesToken { next.pendingChangesToken = token }
        if page.nextPageCursor == nil {
            if let token = next.pendingChangesToken { next.changesToken = token }
            next.pendingChangesToken = nil
            next.lastCompletedAt = now
            if request.mode == .full { next.lastFullSyncAt = now }
        }
        return next
    }

    // MARK: Storage

    /// Creates the checkpoint table in a kit's database, or brings an older one up to date (the run's
    /// pending token); call it from the kit's migrations: the first one, and one added after it for files
    /// made before the pending token existed. Running it again changes nothing.
    public static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS sync_checkpoint (
                    name TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, page_cursor TEXT, changes_token TEXT,
                    last_completed_at DOUBLE, last_full_sync_at DOUBLE, pending_changes_token TEXT)
                """)
        if try !db.columns(in: "sync_checkpoint").contains(where: { $0.name == "pending_changes_token" }) {
            try db.execute(sql: "ALTER TABLE sync_checkpoint ADD COLUMN pending_changes_token TEXT")
        }
    }

    /// The checkpoint stored for `sync`, if any.
    public static func fetch(_ db: Database, sync: String) throws -> SyncCheckpoint? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT mode, page_cursor, changes_token, last_completed_at, last_full_sync_at, pending_changes_token
                    FROM sync_checkpoint WHERE name = ?
                    """,
                arguments: [sync])
        else { return nil }
        let completed: Double? = row[3]
        let full: Double? = row[4]
        return SyncCheckpoint(
            mode: SyncMode(rawValue: row[0]) ?? .full, pageCursor: row[1], changesToken: row[2], pendingChangesToken: row[5],
            lastCompletedAt: completed.map(Date.init(timeIntervalSince1970:)),
            lastFullSyncAt: full.map(Date.init(timeIntervalSince1970:)))
    }

    /// Stores the checkpoint for `sync`; call it in the transaction that stores the page.
    public func save(_ db: Database, sync: String) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sync_checkpoint
                    (name, mode, page_cursor, changes_token, last_completed_at, last_full_sync_at, pending_changes_token)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                sync, mode.rawValue, pageCursor, changesToken, lastCompletedAt?.timeIntervalSince1970,
                lastFullSyncAt?.timeIntervalSince1970, pendingChangesToken,
            ])
    }
}
