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
        return (try? store(for: user).all()) ?? []
    }

    /// The mutations refused for good since the queue started, oldest first (what ``MutationQueueState/failures``
    /// holds), for a kit that settles the changes it keeps on the device.
    public func failures() -> [MutationFailure] {
        state.failures
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

    func setReplaying(_ replaying: Bool) {
        state.isReplaying = replaying
        for observer in observers.values { observer.yield(state) }
    }

    /// What changed in the pending list, applied in memory (no read of the whole queue per step).
    enum PendingChange {
        case appended(QueuedMutation)
        case removed(Int64)
        case failed(Int64, String)
        case none
    }

    func publish(for user: String, _ change: PendingChange) async {
        let current = await configuration.tokenProvider.currentCredentials()?.userId
        if current != user {
            state.pending = []
            pendingOwner = nil
        } else if pendingOwner != user {
            state.pending = (try? store(for: user).all()) ?? []
            pendingOwner = user
        } else {
            switch change {
            case .appended(let mutation): state.pending.append(mutation)
            case .removed(let id): state.pending.removeAll { $0.id == id }
            case .failed(let id, let reason):
                if let index = state.pending.firstIndex(where: { $0.id == id }) {
                    state.pending[index].attempts += 1
                    state.pending[index].lastError = reason
                }
            case .none: break
            }
        }
        for observer in observers.values { observer.yield(state) }
    }
}
