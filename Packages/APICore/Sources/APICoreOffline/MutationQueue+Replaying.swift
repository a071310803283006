import APICore
import APICoreREST
import CacheKit
import Foundation
import Logging

// Replaying: in order, once the network allows, with backoff; a 4xx is dropped and rolled back.
extension MutationQueue {
    /// Sends the signed-in user's mutations in order until the queue is empty or one must wait
    /// (see the type's documentation). Concurrent calls share one replay, which goes round again when a
    /// call came after it last looked at the queue (a change enqueued as it was ending is never left
    /// unsent until the next trigger).
    @discardableResult
    public func replay() async -> ReplayReport {
        if let running {
            replayAgain = true
            return await running.value
        }
        let task = Task { await self.sendAllWhileAsked() }
        running = task
        let report = await task.value
        running = nil
        // A call that came after the replay's last look, as it ended.
        if replayAgain, report.stoppedBy == nil {
            replayAgain = false
            scheduleReplay()
        }
        // A network failure, or a file that could not take a write (it may again once space is freed), is tried
        // again with backoff.
        if automatic, report.remaining > 0, let error = report.stoppedBy, error.isRetryable || Self.storageStops.contains(error) {
            scheduleRetry()
        }
        return report
    }

    /// ``sendAll()``, again as long as a call asked for a replay meanwhile and nothing must wait.
    func sendAllWhileAsked() async -> ReplayReport {
        replayAgain = false
        var report = await sendAll()
        while replayAgain, report.stoppedBy == nil {
            replayAgain = false
            let more = await sendAll()
            report.sent += more.sent
            report.refused += more.refused
            report.stoppedBy = more.stoppedBy
            report.remaining = more.remaining
        }
        // Waiting on the network or a sign-in: the retry, the reconnection or the next call starts the next one.
        if report.stoppedBy != nil { replayAgain = false }
        return report
    }

    /// Replays by itself from now on: after each enqueue, each time `connectivity` says the network
    /// returned, and after a retryable failure with backoff. Publishes the signed-in user's pending changes
    /// and refusals (read from their file: what a previous run left), then replays once at once.
    public func start(connectivity: (any Connectivity)? = nil) async {
        automatic = true
        reconnection?.cancel()
        reconnection = connectivity?.whenOnlineAgain { [weak self] in await self?.replay() }
        if let user = await configuration.tokenProvider.currentCredentials()?.userId { await publish(for: user, .none) }
        scheduleReplay()
    }

    /// Stops replaying by itself and waits for a replay in progress to end (what is queued stays).
    public func stop() async {
        automatic = false
        retry?.cancel()
        reconnection?.cancel()
        if let running { _ = await running.value }
    }

    func scheduleReplay() {
        Task { await self.replay() }
    }

    func scheduleRetry() {
        retry?.cancel()
        let attempt = max(1, state.pending.first?.attempts ?? 1, storageFailures)
        let delay = configuration.backoff.delay(beforeRetry: attempt, unit: configuration.random())
        // Held weakly while it sleeps (up to the backoff's five minutes): a queue its app dropped is freed.
        retry = Task { [weak self, sleeper = configuration.sleeper] in
            guard (try? await sleeper.sleep(for: delay)) != nil else { return }
            await self?.replay()
        }
    }

    func sendAll() async -> ReplayReport {
        var report = ReplayReport()
        var droppedConnectionResends = 0
        setReplaying(true)
        defer { setReplaying(false) }
        while !Task.isCancelled {
            guard let credentials = await configuration.tokenProvider.currentCredentials() else { break }
            let user = credentials.userId
            let store: MutationQueueStore
            let next: QueuedMutation?
            do {
                store = try self.store(for: user)
                next = try store.first()
            } catch {
                configuration.logger.error("The mutation queue could not be read", metadata: ["error": "\(error)"])
                break
            }
            guard let next else { break }
            var outcome = await send(next, as: credentials, optimistic: { try? store.optimistic(of: next.id) })
            // Connections pooled before the network went away fail when reused: send again at once,
            // at most three times per replay (the idempotency key makes it safe), before waiting.
            while case .wait(.transport(.connectionLost)) = outcome, droppedConnectionResends < 3 {
                droppedConnectionResends += 1
                outcome = await send(next, as: credentials, optimistic: { try? store.optimistic(of: next.id) })
            }
            var change = PendingChange.removed(next.id)
            switch outcome {
            case .sent(let answer):
                report.sent += 1
                do {
                    if let created = next.creates, let serverId = Self.serverId(in: answer), serverId != created {
                        // Every mutation still queued now says the server's id: none goes with the device's.
                        try store.remove(next.id, remapping: IdRemap(clientId: created, serverId: serverId, mutation: next.name))
                        change = .reload
                    } else {
                        try store.remove(next.id)
                    }
                    storageFailures = 0
                } catch {
                    // Sent, but the file cannot forget it: the replay stops rather than send it again and again. The
                    // next one (or the next launch) sends it once more with its key, which the server answers
                    // without applying it twice.
                    configuration.logger.error(
                        "A sent mutation could not be removed from the queue's file", metadata: ["error": "\(error)"])
                    change = .none
                    storageFailures += 1
                    report.stoppedBy = Self.couldNotForget
                }
            case .refused(let error):
                let failure = MutationFailure(mutation: next, error: error)
                // Kept in the user's file until its kit settles it: never taken for sent after a restart. A file
                // that cannot take it keeps the mutation queued instead (sent again later: the key makes it safe).
                guard (try? store.refuse(next, error: error)) != nil else {
                    change = .none
                    storageFailures += 1
                    report.stoppedBy = Self.couldNotKeepRefusal
                    break
                }
                report.refused.append(failure)
                change = .refused(failure)
                configuration.logger.warning(
                    "A queued mutation was refused; kept as a refusal until its kit settles it",
                    metadata: ["mutation": "\(next.name)", "error": "\(error)"])
            case .wait(let error):
                try? store.recordFailure(of: next.id, reason: "\(error)")
                change = .failed(next.id, "\(error)")
                report.stoppedBy = error
            case .notOwner:
                change = .none
                // Another user signed in meanwhile: their queue is next, in this same replay.
                if await configuration.tokenProvider.currentCredentials()?.userId != user {
                    await publish(for: user, change)
                    continue
                }
                report.stoppedBy = .unauthorized(body: Data())
            }
            await publish(for: user, change)
            if report.stoppedBy != nil { break }
        }
        report.remaining = state.pending.count
        return report
    }

    /// Why a replay stopped when the queue's file could not forget a change the server accepted.
    static let couldNotForget = APIError.invalidRequest(reason: "the queue's file could not forget a sent change")
    /// Why a replay stopped when the queue's file could not keep a refusal.
    static let couldNotKeepRefusal = APIError.invalidRequest(reason: "the queue's file could not keep a refusal")
    /// The stops a file that could not take a write causes.
    static let storageStops: Set<APIError> = [couldNotForget, couldNotKeepRefusal]

    enum Outcome {
        /// Sent; the answer's body (REST), for a created record's id.
        case sent(Data?)
        case refused(APIError)
        case wait(APIError)
        case notOwner
    }

    func send(
        _ mutation: QueuedMutation, as credentials: Credentials,
        optimistic: () -> Data?
    ) async -> Outcome {
        do throws(APIError) {
            switch mutation.request {
            case .rest(let method, let path, let fields, let body):
                guard let rest = configuration.rest else { return .wait(.invalidRequest(reason: "no REST client to send it")) }
                guard
                    let answer = try await rest.sendQueued(
                        method: method, path: path, headerFields: fields, body: body,
                        idempotencyKey: mutation.idempotencyKey, owner: credentials.userId)
                else { return .notOwner }
                return .sent(answer)
            case .graphQL(let document, let variables):
                guard let graphQL = configuration.graphQL else { return .wait(.invalidRequest(reason: "no GraphQL client to send it")) }
                try await graphQL.performQueued(
                    document: document, variables: variables, credentials: credentials,
                    idempotencyKey: mutation.idempotencyKey, optimistic: optimistic())
                return .sent(nil)
            }
        } catch {
            switch error {
            // The session that read `credentials` ended (the GraphQL client checks them again before each send, as
            // the REST client does): the change stays queued for its user, neither sent nor refused.
            case .unauthorized, .forbidden, .cancelled, .sessionChanged: return .notOwner
            case .decoding:
                // A 2xx whose body did not decode: the server applied it.
                return .sent(nil)
            default:
                return error.isRetryable ? .wait(error) : .refused(error)
            }
        }
    }
}
