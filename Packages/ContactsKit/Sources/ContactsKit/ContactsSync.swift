import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

/// The address book as a `SyncSource`: a full sync pages through `/contacts`, an incremental one through
/// `/contacts/changes?since=<token>`; the last page of either also brings the circles, the score and the
/// pending suggestions, in one more request (`/contacts/summary`): ten changed contacts sync in two. Each page is stored with its checkpoint in one transaction
/// (`ContactsStore`), and the changes token is the one the run's first page carried, so nothing that
/// changes while a full sync pages is missed.
struct ContactsSync: SyncSource {
    let rest: RESTClient
    let store: ContactsStore
    let pageSize: Int

    var name: String { ContactsStore.syncName }

    func owner() async throws -> String {
        try await ContactsClient.currentUser(of: rest)
    }

    func checkpoint(for user: String) async throws -> SyncCheckpoint? {
        do {
            return try store.checkpoint(userId: user)
        } catch {
            throw ContactsError.storage(reason: "\(error)")
        }
    }

    func fetchPage(_ request: SyncPageRequest, for user: String) async throws -> SyncPage<ContactsSyncPage> {
        var query = [URLQueryItem(name: "limit", value: String(pageSize))]
        if let cursor = request.pageCursor { query.append(URLQueryItem(name: "after", value: cursor)) }
        let path: String
        if request.mode == .incremental, let token = request.changesToken {
            path = "/contacts/changes"
            query.append(URLQueryItem(name: "since", value: token))
        } else {
            path = "/contacts"
        }
        let response = try await send(
            APIRequest<[ContactJSON]>(path: path, query: query, feature: "contacts.sync", decode: ContactsClient.decodeEnvelope))
        var page = ContactsSyncPage(
            contacts: response.value.filter { $0.deleted != true }.map(\.contact),
            deleted: response.value.filter { $0.deleted == true }.map(\.id), isLast: response.headerFields[Self.nextCursor] == nil,
            startsFullSync: request.mode == .full && request.isFirstPage)
        var requests = 1
        if page.isLast {
            let summary = try await send(
                APIRequest<Summary>(path: "/contacts/summary", feature: "contacts.sync", decode: ContactsClient.decodeEnvelope)
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
        if let circles = page.circles { counts["circles"] = circles.count }
        if let suggestions = page.suggestions { counts["suggestions"] = suggestions.count }
        // The run keeps the token its first page carried: a change made while it pages comes in the next run.
        let token = request.isFirstPage ? response.headerFields[Self.changesToken] : nil
        return SyncPage(
            content: page, counts: counts, nextPageCursor: response.headerFields[Self.nextCursor], changesToken: token, requests: requests)
    }

    func store(_ page: SyncPage<ContactsSyncPage>, checkpoint: SyncCheckpoint, for user: String) async throws {
        do {
            try store.store(page.content, checkpoint: checkpoint, userId: user)
        } catch {
            throw ContactsError.storage(reason: "\(error)")
        }
    }

    private func send<R>(_ request: APIRequest<R>) async throws(ContactsError) -> APIResponse<R> {
        do {
            return try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch {
            throw .api(error)
        }
    }

    private struct Summary: Decodable {
        var circles: [ContactCircle]
        var score: ContactScore
        var suggestions: [DuplicateSuggestion]
        var profile: ContactProfile?
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
}

/// A contact on the wire; a change feed's deleted entry has only its id and `deleted`.
struct ContactJSON: Decodable, Sendable {
    var id: String
    var displayName: String?
    var phones: [String]?
    var emails: [String]?
    var photoPath: String?
    var circles: [String]?
    var profileClass: String?
    var enrichmentBadges: [String]?
    var updatedAt: Date?
    var deleted: Bool?

    var contact: Contact {
        Contact(
            id: id, displayName: displayName ?? "", phones: phones ?? [], emails: emails ?? [], photoPath: photoPath,
            circles: circles ?? [],
            profileClass: profileClass ?? "person", enrichmentBadges: enrichmentBadges ?? [],
            updatedAt: updatedAt ?? Date(timeIntervalSince1970: 0))
    }
}
