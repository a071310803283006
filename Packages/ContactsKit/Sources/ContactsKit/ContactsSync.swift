import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

/// The address book as a `SyncSource`: a full sync pages through `/contacts`, an incremental one through
/// `/contacts/changes?since=<token>`; the last page of either also brings the circles, the score and the
/// pending suggestions, in one more request (`/contacts/summary`): ten changed contacts sync in two. Each
/// page is stored with its checkpoint in one transaction (`ContactsStore`), the changes kept on the device
/// applied again over it.
///
/// The resume contract: a run's pages carry the server's change counter as `X-Changes-Token`; the run
/// keeps the one its first page carried as its pending token and adopts it only at its last page. A run
/// cut part way resumes with `since=<the token it started from>&after=<its page cursor>`, which the server
/// answers with the changes after the cursor (`after` is a change number of that feed, never below `since`),
/// so nothing between the cursor and the newer token is skipped.
///
/// The owner is the signed-in user with the files' clearing generation: every request is sent as that user
/// only, and a run stops (stores nothing more) once another user signed in or the files were cleared.
struct ContactsSync: SyncSource {
    let rest: RESTClient
    let store: ContactsStore
    let queue: MutationQueue?
    /// Where thumbnails are kept: a removed contact's goes with it.
    let images: ImageCache?
    let pageSize: Int

    var name: String { ContactsStore.syncName }

    func owner() async throws -> UserDatabases.Lease {
        store.lease(for: try await ContactsClient.currentUser(of: rest))
    }

    func checkpoint(for owner: UserDatabases.Lease) async throws -> SyncCheckpoint? {
        do {
            return try store.checkpoint(userId: owner.userId)
        } catch {
            throw ContactsError.storage(reason: "\(error)")
        }
    }

    func fetchPage(_ request: SyncPageRequest, for owner: UserDatabases.Lease) async throws -> SyncPage<ContactsSyncPage> {
        var query = [URLQueryItem(name: "limit", value: String(pageSize))]
        if let cursor = request.pageCursor { query.append(URLQueryItem(name: "after", value: cursor)) }
        let path: String
        let incremental = request.mode == .incremental ? request.changesToken : nil
        if let since = incremental {
            path = "/contacts/changes"
            query.append(URLQueryItem(name: "since", value: since))
        } else {
            path = "/contacts"
        }
        // Which kept changes were queued, then which of them are still in the queue, both read before the page
        // is fetched: one sent before then is in the page (the server applied it) and is forgotten when the page
        // is stored, so it never covers a later change of the server. A change queued after the first read is
        // not among them, so it is never forgotten by this page.
        let queued = await queueSnapshot(of: owner.userId)
        let response: APIResponse<[ContactJSON?]>
        do {
            response = try await send(
                APIRequest<[ContactJSON?]>(path: path, query: query, feature: "contacts.sync", decode: ContactJSON.page), as: owner)
        } catch {
            if incremental != nil, case .api(let failure) = error, failure.serverCode == "INVALID_CURSOR" {
                throw SyncError.changesTokenRejected
            }
            throw error
        }
        let token = response.headerFields[Self.changesToken]
        // A counter below the one asked since: the server's log is not the one the token came from.
        if let since = incremental.flatMap(Int.init), let now = token.flatMap(Int.init), now < since {
            throw SyncError.changesTokenRejected
        }
        let records = response.value.compactMap { $0 }
        var page = ContactsSyncPage(
            contacts: records.filter { $0.deleted != true }.map(\.contact),
            deleted: records.filter { $0.deleted == true }.map(\.id), isLast: response.headerFields[Self.nextCursor] == nil,
            startsFullSync: request.mode == .full && request.isFirstPage)
        page.queue = queued
        var requests = 1
        if page.isLast {
            let summary = try await send(
                APIRequest<ContactsSummary>(path: "/contacts/summary", feature: "contacts.sync", decode: ContactsClient.decodeEnvelope),
                as: owner
            )
            .value
            page.circles = summary.circles
            page.score = summary.score
            page.suggestions = summary.suggestions
            page.profile = summary.profile
            requests += 1
        }
        var counts = ["contacts": page.contacts.count]
        if !page.deleted.isEmpty { counts["deleted"] = page.deleted.count }
        if records.count < response.value.count { counts["skipped"] = response.value.count - records.count }
        if let circles = page.circles { counts["circles"] = circles.count }
        if let suggestions = page.suggestions { counts["suggestions"] = suggestions.count }
        // The run adopts the token its first page carried once it completes: a change made while it pages
        // comes in the next run.
        return SyncPage(
            content: page, counts: counts, nextPageCursor: response.headerFields[Self.nextCursor],
            changesToken: request.isFirstPage ? token : nil, requests: requests)
    }

    func store(_ page: SyncPage<ContactsSyncPage>, checkpoint: SyncCheckpoint, for owner: UserDatabases.Lease) async throws {
        let removedPhotos: [String]
        do {
            removedPhotos = try store.store(page.content, checkpoint: checkpoint, lease: owner)
        } catch {
            throw ContactsError.storage(reason: "\(error)")
        }
        for path in removedPhotos { try? images?.clear(forKey: path, user: owner.userId) }
    }

    /// The kept changes marked queued, then the keys still queued or refused (refusals are undone by the
    /// client's queue follower); `nil` without a queue, or when the queue's user is another.
    private func queueSnapshot(of user: String) async -> QueueSnapshot? {
        guard let queue, let kept = try? store.pendingChanges(userId: user) else { return nil }
        let keptBefore = Set(kept.filter(\.queued).map(\.key))
        let pending = await queue.pending().map(\.idempotencyKey)
        let refused = await queue.failures().map(\.mutation.idempotencyKey)
        guard (try? await ContactsClient.currentUser(of: rest)) == user else { return nil }
        return QueueSnapshot(keptBefore: keptBefore, stillQueued: Set(pending + refused))
    }

    private func send<R>(_ request: APIRequest<R>, as owner: UserDatabases.Lease) async throws(ContactsError) -> APIResponse<R> {
        var request = request
        request.owner = owner.userId
        do {
            return try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch {
            throw .api(error)
        }
    }

    private static let nextCursor = HTTPField.Name("X-Next-Cursor") ?? .contentType
    private static let changesToken = HTTPField.Name("X-Changes-Token") ?? .contentType
}

/// One page of the address book's sync.
struct ContactsSyncPage: Sendable {
    var contacts: [Contact]
    var deleted: [String]
    var isLast: Bool
    /// Whether this page starts a full sync (the store then marks what it holds, to sweep what no page brings).
    var startsFullSync: Bool
    var circles: [ContactCircle]? = nil
    var score: ContactScore? = nil
    var suggestions: [DuplicateSuggestion]? = nil
    var profile: ContactProfile? = nil
    /// The kept changes the queue had sent when the page was fetched (the page holds them, so they are
    /// forgotten). `nil`: unknown, every kept change stays.
    var queue: QueueSnapshot? = nil
}

/// The kept changes marked queued, and then the keys the queue still held (pending or refused).
struct QueueSnapshot: Sendable {
    var keptBefore: Set<String>
    var stillQueued: Set<String>
}
