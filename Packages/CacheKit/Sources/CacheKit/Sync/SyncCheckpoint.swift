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
    /// What the next incremental sync asks changes since.
    public var changesToken: String?
    /// When a run (full or incremental) last reached its last page.
    public var lastCompletedAt: Date?
    /// When a full sync last completed.
    public var lastFullSyncAt: Date?

    /// Creates a checkpoint.
    public init(
        mode: SyncMode, pageCursor: String? = nil, changesToken: String? = nil, lastCompletedAt: Date? = nil,
        lastFullSyncAt: Date? = nil
    ) {
        self.mode = mode
        self.pageCursor = pageCursor
        self.changesToken = changesToken
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

    /// The checkpoint to store with `page`, fetched for `request`, at `now`.
    public func advanced<Content>(by page: SyncPage<Content>, for request: SyncPageRequest, at now: Date) -> SyncCheckpoint {
        var next = self
        next.mode = request.mode
        next.pageCursor = page.nextPageCursor
        if let token = page.changesToken { next.changesToken = token }
        if page.nextPageCursor == nil {
            next.lastCompletedAt = now
            if request.mode == .full { next.lastFullSyncAt = now }
        }
        return next
    }

    // MARK: Storage

    /// Creates the checkpoint table in a kit's database; call it from one of the kit's migrations.
    public static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS sync_checkpoint (
                    name TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, page_cursor TEXT, changes_token TEXT,
                    last_completed_at DOUBLE, last_full_sync_at DOUBLE)
                """)
    }

    /// The checkpoint stored for `sync`, if any.
    public static func fetch(_ db: Database, sync: String) throws -> SyncCheckpoint? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT mode, page_cursor, changes_token, last_completed_at, last_full_sync_at FROM sync_checkpoint WHERE name = ?",
                arguments: [sync])
        else { return nil }
        let completed: Double? = row[3]
        let full: Double? = row[4]
        return SyncCheckpoint(
            mode: SyncMode(rawValue: row[0]) ?? .full, pageCursor: row[1], changesToken: row[2],
            lastCompletedAt: completed.map(Date.init(timeIntervalSince1970:)),
            lastFullSyncAt: full.map(Date.init(timeIntervalSince1970:)))
    }

    /// Stores the checkpoint for `sync`; call it in the transaction that stores the page.
    public func save(_ db: Database, sync: String) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sync_checkpoint (name, mode, page_cursor, changes_token, last_completed_at, last_full_sync_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                sync, mode.rawValue, pageCursor, changesToken, lastCompletedAt?.timeIntervalSince1970,
                lastFullSyncAt?.timeIntervalSince1970,
            ])
    }
}
