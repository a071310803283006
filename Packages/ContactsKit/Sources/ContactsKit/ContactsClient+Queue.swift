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
    /// of its state settles the changes kept on the device.
    public func followQueue() async {
        guard let queue else { return }
        let states = await queue.states()
        let task = Task { [weak self] in
            for await state in states {
                guard let self else { return }
                await self.settleKeptChanges(failures: state.failures)
            }
        }
        follower.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    /// Forgets the kept changes the queue sent, and undoes those it reports refused.
    func settleKeptChanges(failures: [MutationFailure]) async {
        guard let queue, let user = try? await currentUser() else { return }
        let lease = store.lease(for: user)
        let inQueue = Set(await queue.pending().map(\.idempotencyKey))
        guard (try? await currentUser()) == user else { return }
        let refused = Dictionary(failures.map { ($0.mutation.idempotencyKey, $0) }, uniquingKeysWith: { first, _ in first })
        for kept in (try? store.pendingChanges(userId: user)) ?? [] where kept.queued {
            if let failure = refused[kept.key] {
                await undo(kept, lease: lease)
                let event = ContactsEvent.changeRefused(mutation: failure.mutation.name, error: failure.error)
                for observer in observers.withLock({ Array($0.values) }) { observer.yield(event) }
            } else if !inQueue.contains(kept.key) {
                try? store.forget(key: kept.key, lease: lease)
            }
        }
    }

    /// Undoes a refused change with the server's values (fetched now; what cannot be fetched comes with
    /// the next sync).
    private func undo(_ kept: PendingChange, lease: UserDatabases.Lease) async {
        var server = ContactsStore.ServerValues()
        if let id = kept.change.contactId {
            var request = APIRequest<Contact>(path: "/contacts/\(id)", feature: "contacts.detail", decode: Self.decodeEnvelope)
            request.owner = lease.userId
            do {
                server.contacts[id] = try await rest.send(request, policy: .fetchIgnoringCacheCompletely).value
            } catch {
                if case .server(let answer) = error, answer.status == 404 { server.contacts[id] = .some(nil) }
            }
        } else if case .importContacts = kept.change {
        } else {
            var request = APIRequest<ContactsSummary>(path: "/contacts/summary", feature: "contacts.sync", decode: Self.decodeEnvelope)
            request.owner = lease.userId
            if let summary = try? await rest.send(request, policy: .fetchIgnoringCacheCompletely).value {
                server.circles = summary.circles
                server.suggestions = summary.suggestions
                server.profile = summary.profile
            }
        }
        do {
            try store.undo(key: kept.key, server: server, lease: lease)
        } catch {
            environment.logger.info("A refused change could not be undone", metadata: ["error": "\(error)"])
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
