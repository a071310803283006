import APICore
import CacheKit
import Foundation
import HTTPTypes

/// What a queued mutation sends: a REST request, or a GraphQL mutation.
public enum QueuedRequest: Sendable, Hashable {
    /// A REST request: method, path relative to the REST client's base URL (query included), header
    /// fields and body. Sent with an `Idempotency-Key` header.
    case rest(method: HTTPRequest.Method, path: String, headerFields: HTTPFields, body: Data?)
    /// A GraphQL mutation: its document and variables. Sent with an `Idempotency-Key` header and
    /// `extensions.idempotencyKey`.
    case graphQL(document: String, variables: [String: JSONValue])
}

/// A change waiting in the ``MutationQueue``, in order.
public struct QueuedMutation: Sendable, Hashable, Identifiable {
    /// Its place in the queue: mutations are sent in increasing order.
    public var id: Int64
    /// The mutation's name (`AddFavorite`, `SendMessage`): for people, logs and declarations.
    public var name: String
    /// Chosen once at enqueue and sent with every attempt, so the server applies it once.
    public var idempotencyKey: String
    /// What is sent.
    public var request: QueuedRequest
    /// When it was enqueued.
    public var enqueuedAt: Date
    /// How many attempts failed so far (transport failures and 5xx).
    public var attempts: Int
    /// The last failure, for people ("the server could not be reached").
    public var lastError: String?
    /// The client id of the record it creates, if it creates one: when the server answers with an id of its
    /// own, every later queued mutation is rewritten to say it (``MutationQueue/idRemaps(of:)``).
    public var creates: String? = nil
}

/// A queued mutation the server refused for good (a 4xx): removed from the queue, never retried,
/// and its optimistic update rolled back.
public struct MutationFailure: Sendable, Hashable {
    /// The mutation.
    public var mutation: QueuedMutation
    /// Why it was refused.
    public var error: APIError
}

/// What the queue holds and is doing, for a view: the pending count, each item, and the message to
/// show ("Will sync when online").
public struct MutationQueueState: Sendable, Hashable {
    /// The signed-in user's pending mutations, in order.
    public var pending: [QueuedMutation] = []
    /// Whether a replay is sending now.
    public var isReplaying = false
    /// The signed-in user's mutations refused for good and not yet settled by their kit, newest last
    /// (``MutationQueue/failures()``).
    public var failures: [MutationFailure] = []

    /// The pending count.
    public var pendingCount: Int { pending.count }

    /// "Will sync when online" while something waits, else `nil`.
    public var message: String? { pending.isEmpty ? nil : "Will sync when online" }
}

/// Why a mutation could not be queued.
public enum MutationQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The mutation's kit declared it never queued (a payment, a purchase): it needs the network now.
    case requiresConnection(mutation: String)
    /// Nobody is signed in: a queued mutation belongs to a user.
    case signedOut
    /// The user the change was made for is no longer signed in (another signed in meanwhile): nothing was queued.
    case sessionChanged
    /// The queue's file could not be written; nothing was queued.
    case storage(reason: String)
    /// The mutation's GraphQL document does not parse, or the queue has no GraphQL client to send it.
    case invalidOperation(GraphQLOperationError)

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .requiresConnection(let name): "'\(name)' needs a connection: connect to continue"
        case .signedOut: "nobody is signed in; a change can only be queued for a user"
        case .sessionChanged: "the change was made for a user who is no longer signed in; nothing was queued"
        case .storage(let reason): "the change could not be saved: \(reason)"
        case .invalidOperation(let error): "the mutation cannot be queued: \(error)"
        }
    }
}

extension MutationQueueError: LocalizedError {
    /// A sentence for people; `description` is the form for logs.
    public var errorDescription: String? {
        switch self {
        case .requiresConnection: ErrorMessages.connectToContinue
        case .signedOut: "Sign in to save this change."
        case .sessionChanged: "You were signed out before this change was saved. Sign in and make it again."
        case .storage: "The change could not be saved on this device. Free some space and try again."
        case .invalidOperation: ErrorMessages.appProblem
        }
    }
}
