import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import Logging

/// What happened to the address book that a screen did not ask for.
public enum ContactsEvent: Sendable, Hashable {
    /// The server refused a change made on the device for good (a 4xx): it was undone on the device, the
    /// server's value restored. `mutation` is its name (``ContactsClient/Mutation``).
    case changeRefused(mutation: String, error: APIError)
    /// A change made on the device that never reached the queue (its app ended first, or the queue refused it): never
    /// sent, it was undone and the server's value restored. `change` is its handle's id (``ContactsChange/id``).
    case changeNotSent(change: String)
}

// Following the mutation queue: a change the server confirmed is forgotten (its effect stays), one it
// refused is undone and reported.
extension ContactsClient {
    /// Events as they happen (a refused change undone), until the stream is dropped.
    public func events() -> AsyncStream<ContactsEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContactsEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Follows the queue from now on (call it after sign-in and at launch, as the chat kit's): each change
    /// of its state settles the changes kept on the device. Its first pass also settles what a process
    /// killed between queueing a change and marking it queued left behind.
    public func followQueue() async {
        guard let queue else { return }
        await settleKeptChanges(atLaunch: true)
        let states = await queue.states()
        let task = Task { [weak self] in
            for await _ in states {
                guard let self else { return }
                await self.settleKeptChanges(atLaunch: false)
            }
        }
        follower.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    /// Forgets the kept changes the queue sent, and undoes those it refused. The kept changes are read first,
    /// then the queue's pending list, then its refusals: a change queued meanwhile is not among those read,
    /// and a refusal that came meanwhile is among the refusals.
    func settleKeptChanges(atLaunch: Bool) async {
        guard let queue, let user = try? await currentUser() else { return }
        let lease = store.lease(for: user)
        // A record created here that the server stored under its own id is renamed first, so what is read next
        // (and any change made from now on) says the server's id.
        for remap in await queue.idRemaps(of: user) where Mutation.queueable.contains(remap.mutation) {
            guard (try? await currentUser()) == user, (try? store.rename(remap.clientId, to: remap.serverId, lease: lease)) != nil
            else { return }
            await queue.settleRemap(remap, of: user)
        }
        guard let kept = try? store.pendingChanges(userId: user) else { return }
        let inQueue = Dictionary(await queue.pending().map { ($0.idempotencyKey, $0.id) }, uniquingKeysWith: { first, _ in first })
        let failures = await queue.failures()
        guard (try? await currentUser()) == user else { return }
        for change in kept {
            guard change.queued, let id = change.mutationId else {
                // Queued, but not marked so (a kill in between): marked now. Not queued at all at launch (a kill
                // before the queue took it), or refused by the queue: never sent, so undone, its effect on the device
                // never left applied; by a later pass when the server's values cannot be fetched now (offline). One
                // this process is recording is on its way to the queue, however the reads above fell beside it.
                if let id = inQueue[change.key] {
                    try? store.markQueued(key: change.key, mutationId: id, lease: lease)
                } else if !Self.isRecording(change.key) {
                    if atLaunch { Self.notQueued.withLock { _ = $0.insert(change.key) } }
                    if Self.notQueued.withLock({ $0.contains(change.key) }) { await undoNotQueued(change, lease: lease) }
                }
                continue
            }
            if let failure = failures.last(where: { $0.mutation.idempotencyKey == change.key && $0.mutation.id == id }) {
                guard let undone = await undo(change, as: .refused, lease: lease) else { continue }
                // Reported by the pass that undid it; one that found it undone already (another pass) only settles it.
                if undone {
                    let event = ContactsEvent.changeRefused(mutation: failure.mutation.name, error: failure.error)
                    for observer in observers.withLock({ Array($0.values) }) { observer.yield(event) }
                }
                await queue.settle(failure, of: user)
            } else if inQueue[change.key] == nil {
                try? store.forgetSent(key: change.key, lease: lease)
            }
        }
        // The kit's refusals whose change is no longer kept (undone before a kill, before the refusal was
        // settled) are settled now, matched by key against the changes kept now (one recorded or marked since
        // the first read keeps its refusal for the next pass).
        guard let keptNow = try? store.pendingChanges(userId: user) else { return }
        let keptKeys = Set(keptNow.map(\.key))
        for failure in failures
        where Mutation.queueable.contains(failure.mutation.name) && !keptKeys.contains(failure.mutation.idempotencyKey) {
            await queue.settle(failure, of: user)
        }
    }

    /// Undoes the kept change `key`, which the queue refused to take, while its user is still signed in; else the next
    /// pass that can fetch the server's values does.
    func undoNotQueued(_ key: String, lease: UserDatabases.Lease) async {
        guard (try? await currentUser()) == lease.userId,
            let kept = try? store.pendingChanges(userId: lease.userId).first(where: { $0.key == key && !$0.queued })
        else { return }
        await undoNotQueued(kept, lease: lease)
    }

    /// Undoes `kept`, a change that never reached the queue, unless a call records it again meanwhile (checked in the
    /// undo's transaction), and reports it undone. It stays one to undo only when the server's values could not be
    /// fetched.
    private func undoNotQueued(_ kept: PendingChange, lease: UserDatabases.Lease) async {
        guard let undone = await undo(kept, as: .notSent, lease: lease) else { return }
        Self.notQueued.withLock { _ = $0.remove(kept.key) }
        guard undone else { return }
        let event = ContactsEvent.changeNotSent(change: kept.key)
        for observer in observers.withLock({ Array($0.values) }) { observer.yield(event) }
    }

    /// Undoes a refused change with the server's values, fetched now. Returns `nil`, keeping the change for the next
    /// try, when they cannot be fetched (a contact the server no longer has counts as fetched); else whether it was
    /// undone (`false`: no longer kept, or, never sent, on its way to the queue again).
    private func undo(_ kept: PendingChange, as outcome: ContactsChange.State, lease: UserDatabases.Lease) async -> Bool? {
        var server = ContactsStore.ServerValues()
        if let id = kept.change.contactId {
            guard let fetched = await fetchContact(id, for: lease.userId) else { return nil }
            server.contacts[id] = fetched
        }
        if kept.change.restoresSummary {
            guard let summary = await fetchSummary(for: lease.userId) else { return nil }
            server.circles = summary.circles
            server.suggestions = summary.suggestions
            server.profile = summary.profile
        }
        do {
            let photos = thumbnails(of: kept.change.contactIds, lease: lease)
            let undone = try store.undo(key: kept.key, as: outcome, server: server, lease: lease) { Self.isRecording(kept.key) }
            dropThumbnails(photos, ofContactsGoneFrom: lease)
            return undone
        } catch {
            environment.logger.info("A refused change could not be undone", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

/// The circles, the score, the pending suggestions and the profile in one answer (`/contacts/summary`).
struct ContactsSummary: Decodable {
    var circles: [ContactCircle]
    var score: ContactScore
    var suggestions: [DuplicateSuggestion]
    var profile: ContactProfile?
}
