import APICore
import APICoreREST
import CacheKit
import Foundation
import Logging

/// Changes made offline, kept in order on disk per user and sent when the network returns: nothing
/// is lost (an enqueue that returned is on disk) and nothing is applied twice (each mutation carries
/// an idempotency key chosen once, and the server answers a repeat with its first answer).
///
/// ```swift
/// let queue = MutationQueue(configuration: .init(directory: support.appending(path: "mutations"),
///                                                tokenProvider: session, rest: rest, graphQL: graphQL))
/// await queue.start(connectivity: connectivity)        // replays on reconnect, retries with backoff
/// try await queue.enqueue(.rest(method: .put, path: "/api/favorites/calm", headerFields: [:], body: nil),
///                         name: "AddFavorite")
/// for await state in await queue.states() { toast(state.message) }   // "Will sync when online"
/// ```
///
/// - **Order.** Mutations are sent one at a time, oldest first. A transport failure, a 5xx, a 408
///   or a 429 stops the replay and keeps the mutation (retried with exponential backoff and jitter,
///   and at once when the network returns); a dropped connection is first sent again at once, up to
///   three times per replay (pooled connections that died while offline). Any other refusal (a 4xx, a GraphQL `errors` array) is
///   permanent: the mutation is removed, kept in the user's file as a refusal (``failures()``, also after a restart) until its kit settles it (``settle(_:of:)``), and its
///   optimistic update rolled back; the next one is sent.
/// - **A file that cannot take a write** (a full disk): a mutation the server accepted that the file cannot
///   forget, or a refusal it cannot keep, stops the replay with the mutation kept; it is sent again, with its key,
///   after a backoff that grows with each such stop in a row.
/// - **Users.** Each user's queue is a file of its own. A mutation is only ever sent while its
///   user is signed in, with that user's token; a 401 or 403 stops the replay and keeps it.
///   At logout the app keeps the queue for the user's next sign-in or discards it
///   (``endSession(of:keepingQueue:)``); account deletion erases it (``erase(userId:)``).
public actor MutationQueue {
    /// How a queue is set up.
    public struct Configuration: Sendable {
        /// The folder of the per-user queue files (application support, not caches).
        public var directory: URL
        /// Whose queue is active, and the token mutations are sent with.
        public var tokenProvider: any TokenProvider
        /// Sends ``QueuedRequest/rest(method:path:headerFields:body:)`` mutations.
        public var rest: RESTClient?
        /// Sends ``QueuedRequest/graphQL(document:variables:)`` mutations and holds their optimistic
        /// updates: a `GraphQLClient`. Without one, a GraphQL mutation is refused at enqueue.
        public var graphQL: (any QueuedGraphQLSender)?
        /// The kits' declarations (`KitRegistry/declareMutation(_:_:)`).
        public var container: DependencyContainer?
        /// Stamps enqueues.
        public var clock: any CacheClock
        /// Waits between automatic retries.
        public var sleeper: any Sleeper
        /// The delays between automatic retries (exponential with jitter); `maxAttempts` is ignored.
        public var backoff: RetryPolicy
        /// A number in `0...1` for the jitter.
        public var random: @Sendable () -> Double
        /// Where failures are logged (names and statuses only).
        public var logger: Logger

        /// Creates a configuration.
        public init(
            directory: URL, tokenProvider: any TokenProvider, rest: RESTClient? = nil, graphQL: (any QueuedGraphQLSender)? = nil,
            container: DependencyContainer? = nil, clock: any CacheClock = SystemClock(),
            sleeper: any Sleeper = TaskSleeper(),
            backoff: RetryPolicy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(300)),
            random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
            logger: Logger = Logger(label: "APICore.MutationQueue")
        ) {
            self.directory = directory
            self.tokenProvider = tokenProvider
            self.rest = rest
            self.graphQL = graphQL
            self.container = container
            self.clock = clock
            self.sleeper = sleeper
            self.backoff = backoff
            self.random = random
            self.logger = logger
        }
    }

    /// What one replay did.
    public struct ReplayReport: Sendable, Hashable {
        /// Mutations the server accepted. One whose removal from the file failed is counted too, and stays queued:
        /// the replay stops there (``stoppedBy``), and the retry sends it again with its key.
        public var sent = 0
        /// Mutations refused for good (removed, rolled back).
        public var refused: [MutationFailure] = []
        /// Why the replay stopped with mutations left, if it did.
        public var stoppedBy: APIError?
        /// Mutations still waiting.
        public var remaining = 0
    }

    /// The configuration.
    public nonisolated let configuration: Configuration
    var stores: [String: MutationQueueStore] = [:]
    var state = MutationQueueState()
    /// Whose mutations ``state`` lists (read from disk once, then kept up to date in memory).
    var pendingOwner: String?
    /// The key of the hashes that name the users' files.
    let fileSecret: InstallSecret
    var observers: [Int: AsyncStream<MutationQueueState>.Continuation] = [:]
    var nextObserver = 0
    var running: Task<ReplayReport, Never>?
    /// Whether a replay was asked for while one ran (it goes round again).
    var replayAgain = false
    /// Replays in a row that stopped because the queue's file could not take a write (a full disk): the retry's
    /// backoff grows with them, since the mutation's own attempts cannot be counted in that file.
    var storageFailures = 0
    /// How many sessions ended (``sessionEnded()``): a publication that began before an end is dropped.
    var sessionEpoch = 0
    var automatic = false
    var retry: Task<Void, Never>?
    var reconnection: Task<Void, Never>?

    /// Creates a queue; nothing is sent until ``replay()`` or ``start(connectivity:)``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        fileSecret = InstallSecret(directory: configuration.directory)
    }

    deinit {
        retry?.cancel()
        reconnection?.cancel()
    }

    // MARK: Enqueueing

    /// Saves a mutation for the signed-in user and, once ``start(connectivity:)`` ran, sends it
    /// (with everything queued before it) in the background.
    ///
    /// - Parameters:
    ///   - request: what to send.
    ///   - name: the mutation's name; for GraphQL, its operation name is used when it has one.
    ///   - idempotencyKey: the key sent with every attempt; a new UUID by default. A kit whose server
    ///     already deduplicates by a client id (a chat message's id) passes that id.
    ///   - optimisticResponse: for a GraphQL mutation, data shaped like its result, written to the
    ///     normalized cache at once and rolled back exactly if the mutation is refused for good.
    ///   - creates: the client id of the record this mutation creates, when the server may store it under an
    ///     id of its own (answered as `data.id` or `id`): every later mutation is then rewritten to say the
    ///     server's id before it is sent, and the kit learns it from ``idRemaps(of:)``.
    ///   - owner: the user the change was made for, when the kit learned it before (and recorded the change in
    ///     that user's files): it is queued for that user only, and refused if another user signed in
    ///     meanwhile, so it never lands in the next user's queue to leave with their token.
    /// - Returns: the queued mutation; it is on disk when this returns.
    /// - Throws: ``MutationQueueError/requiresConnection(mutation:)`` when its kit declared it never
    ///   queued; ``MutationQueueError/signedOut``; ``MutationQueueError/sessionChanged`` when `owner` is no
    ///   longer signed in; ``MutationQueueError/storage(reason:)``; ``MutationQueueError/invalidOperation(_:)``.
    @discardableResult
    public func enqueue(
        _ request: QueuedRequest, name: String, idempotencyKey: String? = nil,
        optimisticResponse: [String: JSONValue]? = nil, creates: String? = nil, owner: String? = nil
    ) async throws(MutationQueueError) -> QueuedMutation {
        var name = name
        if case .graphQL(let document, _) = request {
            guard let graphQL = configuration.graphQL else {
                throw .invalidOperation(.unsupported("a GraphQL mutation on a queue with no GraphQL client"))
            }
            do throws(GraphQLOperationError) {
                name = try graphQL.queuedOperationName(document) ?? name
            } catch {
                throw .invalidOperation(error)
            }
        }
        if configuration.container?.mutationPolicy(forMutation: name) == .requiresConnection {
            throw .requiresConnection(mutation: name)
        }
        // A session that ends while this call waits (a logout erasing the user's queue) refuses it: appended
        // after the erasure, the change would outlive the logout or the account.
        let epoch = sessionEpoch
        guard let userId = await configuration.tokenProvider.currentCredentials()?.userId else { throw .signedOut }
        if let owner, owner != userId { throw .sessionChanged }
        var optimistic: Data?
        if let optimisticResponse, case .graphQL(let document, let variables) = request, let graphQL = configuration.graphQL {
            optimistic = await graphQL.applyQueuedOptimistic(optimisticResponse, document: document, variables: variables)
        }
        guard epoch == sessionEpoch else {
            if let optimistic, let graphQL = configuration.graphQL { await graphQL.rollBackQueued(optimistic) }
            throw .sessionChanged
        }
        let mutation: QueuedMutation
        do {
            mutation = try store(for: userId).append(
                name: name, key: idempotencyKey ?? UUID().uuidString, request: request,
                at: configuration.clock.now(), optimistic: optimistic, creates: creates)
        } catch {
            if let optimistic, let graphQL = configuration.graphQL { await graphQL.rollBackQueued(optimistic) }
            throw .storage(reason: "\(error)")
        }
        await publish(for: userId, .appended(mutation))
        if automatic { scheduleReplay() }
        return mutation
    }
}
