import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes

/// The chat history as a `SyncSource`: a page of threads (oldest change first, after the cursor)
/// with each thread's messages, stored with its checkpoint in one transaction. The page asks for the
/// messages inside it (`include=messages`: one request a page); a server that does not embed them gets
/// one request a thread. The threads cursor is
/// both where a run continues and what the next incremental sync asks changes after: a resumed run asks
/// after the last page it stored, so it skips nothing. The owner is the signed-in user with the files'
/// clearing generation: every request is sent as that user only, and a run stops (stores nothing more)
/// once another user signed in or the files were cleared.
struct ChatHistorySync: SyncSource {
    /// `chat-history`, the name of its checkpoint and report.
    static let name = "chat-history"
    let rest: RESTClient
    let store: ChatHistoryStore
    let pageSize: Int

    var name: String { Self.name }

    func owner() async throws -> UserDatabases.Lease {
        store.lease(for: try await ChatHistoryClient.currentUser(of: rest))
    }

    func checkpoint(for owner: UserDatabases.Lease) async throws -> SyncCheckpoint? {
        do {
            return try store.checkpoint(userId: owner.userId)
        } catch {
            throw ChatHistoryError.storage(reason: "\(error)")
        }
    }

    func fetchPage(_ request: SyncPageRequest, for owner: UserDatabases.Lease) async throws -> SyncPage<ChatHistoryPage> {
        let after = request.pageCursor ?? request.changesToken
        var query = [URLQueryItem(name: "limit", value: String(pageSize)), URLQueryItem(name: "include", value: "messages")]
        if let after { query.append(URLQueryItem(name: "after", value: after)) }
        let page = try await send(
            APIRequest<[ThreadJSON]>(path: "/chat-history/threads", query: query, feature: "chat.history", decode: DataEnvelope.decode),
            as: owner)
        var threads: [ChatThread] = []
        var messages: [ChatMessage] = []
        var requests = 1
        for json in page.value {
            let thread = try json.thread()
            threads.append(thread)
            var embedded = json.messages
            if embedded == nil {
                requests += 1
                embedded =
                    try await send(
                        APIRequest<[MessageJSON]>(
                            path: PathSegments.path("chat-history", "threads", thread.id, "messages"), feature: "chat.history",
                            decode: DataEnvelope.decode),
                        as: owner
                    ).value
            }
            for message in embedded ?? [] {
                // A message embedded under another thread is refused, as another user's would be.
                guard message.threadId == thread.id else {
                    throw ChatHistoryError.api(.decoding(path: "threads[].messages[].threadId", reason: "not this thread's"))
                }
                messages.append(try message.message())
            }
        }
        let next = page.headerFields[Self.nextCursor]
        let isLast = next == nil || threads.count < pageSize
        return SyncPage(
            content: ChatHistoryPage(threads: threads, messages: messages),
            counts: ["threads": threads.count, "messages": messages.count],
            nextPageCursor: isLast ? nil : next, changesToken: next, requests: requests)
    }

    func store(_ page: SyncPage<ChatHistoryPage>, checkpoint: SyncCheckpoint, for owner: UserDatabases.Lease) async throws {
        do {
            try store.store(lease: owner, threads: page.content.threads, messages: page.content.messages, checkpoint: checkpoint)
        } catch {
            throw ChatHistoryError.storage(reason: "\(error)")
        }
    }

    /// Sends past the HTTP cache (the kit's own store is its cache), as the run's owner only.
    private func send<R>(_ request: APIRequest<R>, as owner: UserDatabases.Lease) async throws(ChatHistoryError) -> APIResponse<R> {
        var request = request
        request.owner = owner.userId
        do {
            return try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch {
            throw .api(error)
        }
    }

    private static let nextCursor = HTTPField.Name("X-Next-Cursor") ?? .contentType
}

/// One page of the history: threads and their messages.
struct ChatHistoryPage: Sendable {
    var threads: [ChatThread]
    var messages: [ChatMessage]
}
