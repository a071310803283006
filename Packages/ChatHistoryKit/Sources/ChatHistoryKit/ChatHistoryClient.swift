import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Logging

/// The chat-history kit's use cases: the history kept on the device and synced from the server,
/// questions sent offline first through the app's `MutationQueue`, today's prediction until the
/// user's day ends, astro data forever per birth data, and the subscription for the session.
///
/// ```swift
/// let chat = try ChatHistoryClient(rest: rest, queue: queue, environment: environment, timeZone: .current)
/// async let synced = chat.syncFromServer()                  // at login, beside the profile fetch
/// let threads = try await chat.threads(area: .chat)         // newest first, from the device
/// try await chat.ask("What does June hold?")                // shown at once as pending, sent when online
/// let today = try await chat.todaysPrediction()             // cached until midnight in `timeZone`
/// ```
public final class ChatHistoryClient: Sendable {
    /// The mutation names this kit queues (declared queueable).
    public enum Mutation {
        /// A question to the astrologer.
        public static let ask = "AskAstrologer"
        /// A compatibility match.
        public static let match = "MatchCompatibility"
    }

    /// The history on the device.
    public let store: ChatHistoryStore
    /// Today's prediction, until the end of the user's day.
    public let predictions: CacheManager<TodaysPrediction>
    /// Birth charts, forever per birth data.
    public let charts: CacheManager<AstroChart>
    /// Dasha periods and transits, forever per birth data and year.
    public let periods: CacheManager<AstroPeriod>
    /// The subscription, for the session only (memory).
    public let subscriptions: CacheManager<SubscriptionProfile>
    /// The history's sync, registered for the app's `BackgroundSync` and run by ``syncFromServer()``.
    public let sync: SyncRunner
    private let rest: RESTClient
    let queue: MutationQueue
    let environment: CacheEnvironment
    let timeZone: TimeZone
    private let follower = Locked<Task<Void, Never>?>(nil)

    /// Creates the use cases.
    ///
    /// - Parameters:
    ///   - rest: the app's REST client (signed in as the user); the kit's own stores are its cache.
    ///   - queue: where questions wait while offline.
    ///   - environment: the app's clock, timeouts, logger and caches folder (the history lives in
    ///     `chat-history/` under it).
    ///   - timeZone: the user's time zone: today's prediction lasts until midnight there.
    ///   - syncPageSize: threads a page of the history's sync (1 to 500).
    /// - Throws: `CacheError` when a cache's folder name is refused (never with these names).
    public init(rest: RESTClient, queue: MutationQueue, environment: CacheEnvironment, timeZone: TimeZone, syncPageSize: Int = 200) throws {
        self.rest = rest
        self.queue = queue
        self.environment = environment
        self.timeZone = timeZone
        store = ChatHistoryStore(directory: environment.cachesDirectory.appendingPathComponent("chat-history", isDirectory: true))
        predictions = try CacheManager(
            feature: "chat.prediction", environment: environment, persistence: .disk(),
            defaultTimeout: .endOfDay(timeZone))
        charts = try CacheManager(feature: "chat.astro.chart", environment: environment, persistence: .disk(), defaultTimeout: .never)
        periods = try CacheManager(feature: "chat.astro.period", environment: environment, persistence: .disk(), defaultTimeout: .never)
        subscriptions = try CacheManager(
            feature: "chat.subscription", environment: environment, persistence: .memoryOnly,
            defaultTimeout: .never)
        sync = SyncRunner(
            ChatHistorySync(rest: rest, store: store, pageSize: min(max(syncPageSize, 1), 500)), clock: environment.clock,
            logger: environment.logger)
    }

    deinit {
        follower.withLock { $0?.cancel() }
    }

    /// Every cache of the kit, for the app's `UnifiedCacheManager`: cleared at logout (the history
    /// too: the server has it).
    public var clearingParticipants: [any CacheClearingParticipant] { [store, predictions, charts, periods, subscriptions] }

    // MARK: History

    /// The signed-in user's threads on this device, most recently changed first.
    /// - Throws: ``ChatHistoryError/signedOut``, ``ChatHistoryError/storage(reason:)``.
    public func threads(area: ChatArea? = nil) async throws(ChatHistoryError) -> [ChatThread] {
        let user = try await currentUser()
        return try storage { try store.threads(userId: user, area: area) }
    }

    /// A thread's messages on this device, oldest first (pending ones included).
    public func messages(threadId: String) async throws(ChatHistoryError) -> [ChatMessage] {
        let user = try await currentUser()
        return try storage { try store.messages(userId: user, threadId: threadId) }
    }

    /// Brings the device's history up to date through ``sync``: only what changed since the last sync,
    /// page by page; everything on a new device, after a clear, or once the last sync is older than
    /// CacheKit's `SyncCheckpoint.defaultMaximumOfflineDuration`. Each page is stored with its
    /// checkpoint, so a sync that fails part way resumes after the last page stored. A call while the
    /// sync is running (the app's `BackgroundSync`) joins that run.
    ///
    /// - Throws: ``ChatHistoryError/signedOut``, or what stopped the sync (the pages before it are kept).
    @discardableResult
    public func syncFromServer() async throws(ChatHistoryError) -> ChatSyncReport {
        let report = await sync.run()
        if let error = report.error {
            throw error as? ChatHistoryError ?? .storage(reason: "\(error)")
        }
        if report.outcome == .cancelled { throw .api(.cancelled) }
        return ChatSyncReport(threads: report.counts["threads"] ?? 0, messages: report.counts["messages"] ?? 0, pages: report.pages)
    }

    /// At login: the history sync and the profile restore (``restoreProfileLocally()``), in parallel.
    public func syncOnLogin() async -> (
        history: Result<ChatSyncReport, ChatHistoryError>,
        subscription: Result<SubscriptionProfile, ChatHistoryError>
    ) {
        async let history = result { () async throws(ChatHistoryError) in try await self.syncFromServer() }
        async let subscription = result { () async throws(ChatHistoryError) in try await self.restoreProfileLocally() }
        return await (history, subscription)
    }

    /// Fetches the profile (premium status, quota, birth data) and keeps it on the device for the
    /// session: after a reinstall or on a new device, what the server holds is what the app shows.
    /// When the birth data differs from the one the astro caches were computed for, they are cleared.
    @discardableResult
    public func restoreProfileLocally() async throws(ChatHistoryError) -> SubscriptionProfile {
        let previous = try? await subscription()
        let profile = try await subscription(refresh: true)
        if let previous, previous.birthData != profile.birthData { try await birthDataChanged() }
        return profile
    }

    /// The birth data the profile restored, if any (no request).
    public func restoredBirthData() async -> BirthData? {
        guard let user = try? await currentUser() else { return nil }
        return await subscriptions.value(forKey: "subscription", requester: user)?.birthData
    }

    // MARK: Asking

    /// Asks the astrologer: the question shows at once as a pending message (in a new thread unless
    /// `threadId` is given) and is sent through the mutation queue, once, with its message id as the
    /// server's idempotency key. The reply is stored by the sync that follows the send.
    /// - Returns: the pending message.
    @discardableResult
    public func ask(_ question: String, inThread threadId: String? = nil) async throws(ChatHistoryError) -> ChatMessage {
        try await enqueue(question, threadId: threadId, area: .chat, path: "/predict/ask", field: "question", name: Mutation.ask)
    }

    /// Asks for a compatibility match with `partner` (area `compatibility`), as ``ask(_:inThread:)`` does.
    @discardableResult
    public func match(with partner: String, inThread threadId: String? = nil) async throws(ChatHistoryError) -> ChatMessage {
        try await enqueue(
            partner, threadId: threadId, area: .compatibility, path: "/compatibility/match", field: "partner",
            name: Mutation.match)
    }

    /// Syncs each time the queue has sent this kit's questions (the replies are then on the server),
    /// and marks refused ones failed. Runs until the client is released.
    public func followQueue() async {
        let states = await queue.states()
        let task = Task { [weak self] in
            var waiting = false
            for await state in states {
                guard let self else { return }
                let ours = state.pending.contains { [Mutation.ask, Mutation.match].contains($0.name) }
                await self.settleRefusals(state.failures)
                if waiting, !ours, !state.isReplaying {
                    do {
                        try await self.syncFromServer()
                    } catch {
                        self.environment.logger.info("Chat sync after sending failed", metadata: ["error": "\(error)"])
                    }
                }
                waiting = ours
            }
        }
        follower.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    private func enqueue(_ text: String, threadId: String?, area: ChatArea, path: String, field: String, name: String)
        async throws(ChatHistoryError) -> ChatMessage
    {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...2_000).contains(text.count) else { throw .invalidText }
        let lease = try await currentLease()
        let now = environment.clock.now()
        let thread =
            threadId == nil
            ? ChatThread(id: UUID().uuidString, title: String(text.prefix(40)), area: area, createdAt: now, updatedAt: now) : nil
        let message = ChatMessage(
            id: UUID().uuidString, threadId: threadId ?? thread?.id ?? "", role: "user", text: text,
            createdAt: now, state: .pending)
        try storage { try store.addPending(lease: lease, thread: thread, message: message) }
        let body = JSONValue.object(["threadId": .string(message.threadId), "messageId": .string(message.id), field: .string(text)])
        do {
            try await queue.enqueue(
                .rest(
                    method: .post, path: path, headerFields: [.contentType: "application/json"],
                    body: body.serialized()), name: name, idempotencyKey: message.id, owner: lease.userId)
        } catch {
            try? store.markFailed(lease: lease, messageId: message.id)
            throw .queue(error)
        }
        return message
    }

    /// The message id a queued question carries, for marking it failed.
    static func messageId(of mutation: QueuedMutation) -> String? {
        guard case .rest(_, _, _, let body?) = mutation.request, case .object(let object)? = try? JSONValue.parse(body) else { return nil }
        return object["messageId"]?.stringValue
    }

    // MARK: Steps

    /// The user's value for `key` from `cache`, else the server's answer to `request`, stored.
    func cached<Value: Codable & Sendable>(
        _ cache: CacheManager<Value>, key: String, user: String,
        refresh: CacheRefresh = .useCache, _ request: APIRequest<Value>
    )
        async throws(ChatHistoryError) -> Value
    {
        // Kept for `user`, so fetched as `user` only: never with the token of whoever signed in meanwhile.
        var request = request
        request.owner = user
        do {
            return try await cache.value(forKey: key, scope: .user(user), refresh: refresh) { [request] in
                try await self.send(request).value
            }
        } catch let error as ChatHistoryError {
            throw error
        } catch {
            throw .api(error as? APIError ?? .transport(.other(reason: "\(error)")))
        }
    }

    func currentUser() async throws(ChatHistoryError) -> String {
        try await Self.currentUser(of: rest)
    }

    /// A lease on the signed-in user's file, the user read again after it is taken: a logout between the two
    /// never leaves a lease that recreates a file.
    func currentLease() async throws(ChatHistoryError) -> UserDatabases.Lease {
        let lease = store.lease(for: try await currentUser())
        guard try await currentUser() == lease.userId else { throw .signedOut }
        return lease
    }

    static func currentUser(of rest: RESTClient) async throws(ChatHistoryError) -> String {
        guard let user = await rest.configuration.tokenProvider?.currentCredentials()?.userId else { throw .signedOut }
        return user
    }

    /// Sends past the HTTP cache: the kit's own stores are its cache.
    private func send<R>(_ request: APIRequest<R>) async throws(ChatHistoryError) -> APIResponse<R> {
        do {
            return try await rest.send(request, policy: .fetchIgnoringCacheCompletely)
        } catch {
            throw .api(error)
        }
    }

    private func storage<T>(_ body: () throws -> T) throws(ChatHistoryError) -> T {
        do {
            return try body()
        } catch {
            throw .storage(reason: "\(error)")
        }
    }

    private func result<T: Sendable>(_ body: @Sendable () async throws(ChatHistoryError) -> T) async -> Result<T, ChatHistoryError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

}

extension ChatHistoryClient {
    /// Account deletion: the user's history file goes (the caches go with the app's clear).
    public func erase(userId: String?) throws {
        guard let userId else { return }
        try store.erase(userId: userId)
    }
}
