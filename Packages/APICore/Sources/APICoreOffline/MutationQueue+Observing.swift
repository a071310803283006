import APICore
import CacheKit
import Foundation
import Logging

// What the app observes: the pending changes and the queue's state.
extension MutationQueue {
    /// The signed-in user's pending mutations, in order.
    ///
    /// Read from the user's file until their queue first changes; from then on, the list that every
    /// enqueue, send and failure keeps in step in memory, so a read costs the same with 10 or 100,000 queued.
    public func pending() async -> [QueuedMutation] {
        guard let user = await configuration.tokenProvider.currentCredentials()?.userId else { return [] }
        if pendingOwner == user { return state.pending }
        return (try? existingStore(for: user)?.all()) ?? []
    }

    /// The signed-in user's mutations refused for good and not yet settled by their kit, oldest first (what
    /// ``MutationQueueState/failures`` holds): kept in the user's file, so a refusal that came before a
    /// restart is still here after it. A kit undoes the change on the device, reports it, then calls
    /// ``settle(_:of:)``.
    public func failures() async -> [MutationFailure] {
        guard let user = await configuration.tokenProvider.currentCredentials()?.userId else { return [] }
        if pendingOwner == user { return state.failures }
        return (try? existingStore(for: user)?.refusals()) ?? []
    }

    /// Forgets a refusal of `userId`'s once its kit has undone the change on the device and reported it.
    public func settle(_ failure: MutationFailure, of userId: String) async {
        do {
            try existingStore(for: userId)?.settle(failure.mutation.id)
        } catch {
            configuration.logger.error("A refusal could not be settled", metadata: ["error": "\(error)"])
        }
        guard pendingOwner == userId else { return }
        state.failures.removeAll { $0.mutation.id == failure.mutation.id }
        for observer in observers.values { observer.yield(state) }
    }

    /// Every end of a session (logout, expiry, account deletion, any sign-in): forgets the ended user's pending
    /// list and refusals in memory (their file keeps them for their next sign-in) and tells every observer,
    /// so nothing the queue publishes is ever another user's.
    public func sessionEnded() {
        sessionEpoch += 1
        forgetOwner()
        for observer in observers.values { observer.yield(state) }
    }

    /// The state now, then every change.
    public func states() -> AsyncStream<MutationQueueState> {
        let (stream, continuation) = AsyncStream.makeStream(of: MutationQueueState.self, bufferingPolicy: .bufferingNewest(16))
        nextObserver += 1
        let id = nextObserver
        observers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        return stream
    }

    func removeObserver(_ id: Int) { observers[id] = nil }

    /// Forgets whose pending list and refusals ``state`` holds, and them: the next publication reads them anew.
    func forgetOwner() {
        state.pending = []
        state.failures = []
        pendingOwner = nil
    }

    func setReplaying(_ replaying: Bool) {
        state.isReplaying = replaying
        for observer in observers.values { observer.yield(state) }
    }

    /// What changed in the pending list, applied in memory (no read of the whole queue per step).
    enum PendingChange {
        case appended(QueuedMutation)
        case removed(Int64)
        case refused(MutationFailure)
        case failed(Int64, String)
        /// Mutations still queued were rewritten (a client id remapped): read again.
        case reload
        case none
    }

    func publish(for user: String, _ change: PendingChange) async {
        let epoch = sessionEpoch
        let current = await configuration.tokenProvider.currentCredentials()?.userId
        // A session ended while the user was asked for: what was asked is stale, and the end published already.
        guard epoch == sessionEpoch else { return }
        if current != user {
            forgetOwner()
        } else if pendingOwner != user {
            do {
                state.pending = try store(for: user).all()
                state.failures = try store(for: user).refusals()
                pendingOwner = user
            } catch {
                // Read again at the next change rather than shown empty for the rest of the session.
                forgetOwner()
                configuration.logger.error("The mutation queue could not be read", metadata: ["error": "\(error)"])
            }
        } else {
            switch change {
            case .appended(let mutation): state.pending.append(mutation)
            case .removed(let id): state.pending.removeAll { $0.id == id }
            case .refused(let failure):
                state.pending.removeAll { $0.id == failure.mutation.id }
                state.failures.append(failure)
            case .failed(let id, let reason):
                if let index = state.pending.firstIndex(where: { $0.id == id }) {
                    state.pending[index].attempts += 1
                    state.pending[index].lastError = reason
                }
            case .reload: state.pending = (try? store(for: user).all()) ?? state.pending
            case .none: break
            }
        }
        for observer in observers.values { observer.yield(state) }
    }
}
