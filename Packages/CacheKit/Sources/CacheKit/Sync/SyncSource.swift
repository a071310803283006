import Foundation

/// What a kit declares to have its data synced by ``SyncRunner``: how to fetch one page of a full or
/// an incremental sync, and how to store a page together with its ``SyncCheckpoint`` in one
/// transaction. The runner decides which sync runs, resumes an interrupted one, honours a time budget
/// and reports what ran; the kit only fetches and stores.
///
/// Every call of one run receives the same ``Owner``, resolved by ``owner()`` when the run starts and
/// asked again before each request and each store: when it differs, the run stops and stores nothing
/// more (``SyncOutcome/sessionEnded``). So that this holds, a source:
/// - makes its owner the signed-in user **and** its files' clearing generation
///   (``UserDatabases/lease(for:)``), so a logout, another user's sign-in or an account deletion changes it;
/// - sends every request of the run as that user only (`APIRequest.owner` in APICoreREST: a request is
///   never sent with another user's token);
/// - stores through the lease (`UserDatabases.database(for: lease)`), which refuses once the
///   files were cleared, so nothing recreates a file after a logout;
/// - throws ``SyncError/changesTokenRejected`` when the server refuses the changes token;
/// - never undoes the user's pending changes when storing a page (re-applies them over it).
///
/// ```swift
/// struct NotesSync: SyncSource {
///     let name = "notes"
///     let api: NotesAPI
///     let files: UserDatabases                                  // the kit's files, one per user
///
///     /// The signed-in user with the files' clearing generation: a run stops once either changes.
///     func owner() async throws -> UserDatabases.Lease { files.lease(for: try await api.signedInUser()) }
///     func checkpoint(for owner: UserDatabases.Lease) async throws -> SyncCheckpoint? {
///         try await files.existingDatabase(for: owner.userId)?.read { db in try SyncCheckpoint.fetch(db, sync: name) }
///     }
///     func fetchPage(_ request: SyncPageRequest, for owner: UserDatabases.Lease) async throws -> SyncPage<[Note]> {
///         let page = try await api.notes(after: request.pageCursor, changedSince: request.changesToken, as: owner.userId)
///         if page.tokenRefused { throw SyncError.changesTokenRejected }
///         return SyncPage(content: page.notes, counts: ["notes": page.notes.count],
///                         nextPageCursor: page.next, changesToken: page.changesToken)
///     }
///     func store(_ page: SyncPage<[Note]>, checkpoint: SyncCheckpoint, for owner: UserDatabases.Lease) async throws {
///         try await files.database(for: owner).write { db in    // refused after a logout
///             for note in page.content { try NoteRow(note).save(db) }
///             try checkpoint.save(db, sync: name)               // same transaction as the page
///         }
///     }
/// }
/// ```
public protocol SyncSource: Sendable {
    /// Whose data a run syncs: the user, with the clearing generation of the files it writes
    /// (``UserDatabases/Lease``).
    associatedtype Owner: Sendable & Hashable
    /// What one page carries.
    associatedtype Content: Sendable

    /// The sync's name in reports and in its checkpoint (`contacts`, `chat-history`).
    var name: String { get }

    /// How long since the last completed sync an incremental sync is still trusted; past it the next
    /// run is a full sync. ``SyncCheckpoint/defaultMaximumOfflineDuration`` (30 days) unless the kit
    /// says otherwise.
    var maximumOfflineDuration: TimeInterval { get }

    /// Resolves whose data this run syncs; throws when nobody is signed in. Called when the run starts
    /// and again before each request and each store.
    func owner() async throws -> Owner

    /// The checkpoint the last run stored for `owner`, or `nil` before the first.
    func checkpoint(for owner: Owner) async throws -> SyncCheckpoint?

    /// Fetches one page. The request says which sync (full or incremental), where the run continues
    /// (``SyncPageRequest/pageCursor``) and what an incremental sync asks changes since
    /// (``SyncPageRequest/changesToken``). Throws ``SyncError/changesTokenRejected`` when the server no
    /// longer accepts that token.
    func fetchPage(_ request: SyncPageRequest, for owner: Owner) async throws -> SyncPage<Content>

    /// Stores `page` and `checkpoint` in one transaction, so a run cut off after it resumes after
    /// this page, and a run cut off before it fetches this page again.
    func store(_ page: SyncPage<Content>, checkpoint: SyncCheckpoint, for owner: Owner) async throws
}

extension SyncSource {
    /// ``SyncCheckpoint/defaultMaximumOfflineDuration``.
    public var maximumOfflineDuration: TimeInterval { SyncCheckpoint.defaultMaximumOfflineDuration }
}

/// Which sync a run is.
public enum SyncMode: String, Sendable, Hashable, Codable {
    /// Everything, page by page: on first launch, and once the last completed sync is older than
    /// the source's maximum offline duration.
    case full
    /// Only what changed since the last completed sync's ``SyncCheckpoint/changesToken``.
    case incremental
}

/// What ``SyncSource/fetchPage(_:for:)`` is asked for.
public struct SyncPageRequest: Sendable, Hashable {
    /// Full or incremental.
    public var mode: SyncMode
    /// Where the run continues: `nil` for its first page, else the previous page's
    /// ``SyncPage/nextPageCursor``.
    public var pageCursor: String?
    /// For an incremental sync, the token the last completed sync ended with; `nil` for a full sync.
    public var changesToken: String?

    /// Creates a request.
    public init(mode: SyncMode, pageCursor: String?, changesToken: String?) {
        self.mode = mode
        self.pageCursor = pageCursor
        self.changesToken = changesToken
    }

    /// Whether this is the first page of its run (a full sync's first page is where a kit may mark
    /// what it holds, to sweep what the server no longer sends).
    public var isFirstPage: Bool { pageCursor == nil }
}

/// One page a source fetched.
public struct SyncPage<Content: Sendable>: Sendable {
    /// What the kit stores.
    public var content: Content
    /// How many records of each kind it holds (`["threads": 2, "messages": 31]`), for reports.
    public var counts: [String: Int]
    /// Where the next page starts; `nil` when this is the run's last page.
    public var nextPageCursor: String?
    /// The token a later incremental sync asks changes since; `nil` keeps the one held.
    public var changesToken: String?
    /// How many requests fetching it took, for reports.
    public var requests: Int
    /// How many records the whole run brings, when the server says so (a full sync's first page often
    /// does): a screen's "1,500 of 10,000" (``SyncState/Activity/running(pages:items:total:)``).
    public var total: Int?

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - content: what ``SyncSource/store(_:checkpoint:for:)`` stores.
    ///   - counts: how many records of each kind it holds, summed into ``SyncReport/counts``.
    ///   - nextPageCursor: where the next page starts; `nil` on the run's last page.
    ///   - changesToken: what a later incremental sync asks changes since; `nil` keeps the one held.
    ///   - requests: how many requests fetching it took.
    ///   - total: how many records the whole run brings, when the server says so.
    public init(
        content: Content, counts: [String: Int], nextPageCursor: String?, changesToken: String?, requests: Int = 1, total: Int? = nil
    ) {
        self.total = total
        self.content = content
        self.counts = counts
        self.nextPageCursor = nextPageCursor
        self.changesToken = changesToken
        self.requests = requests
    }
}
