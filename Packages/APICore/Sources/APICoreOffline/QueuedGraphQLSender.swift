import APICore
import Foundation

/// What the ``MutationQueue`` asks of a GraphQL client: the name of a queued document's operation,
/// optimistic updates that outlive the process (kept beside the queued mutation as data), and
/// sending with an idempotency key.
///
/// `GraphQLClient` (module `APICoreGraphQL`) conforms; pass it as
/// ``MutationQueue/Configuration/graphQL``. The queue holds it through this protocol so that a kit
/// that queues only REST mutations links no GraphQL parser. A kit never calls these itself.
public protocol QueuedGraphQLSender: AnyObject, Sendable {
    /// The name of the operation `document` holds (`nil` for an anonymous one).
    /// - Throws: `GraphQLOperationError` when the document does not parse.
    func queuedOperationName(_ document: String) throws(GraphQLOperationError) -> String?

    /// Writes an optimistic response at enqueue; returns what it replaced, encoded for the queue's file.
    func applyQueuedOptimistic(
        _ response: [String: JSONValue], document: String, variables: [String: JSONValue]
    ) async -> Data?

    /// Rolls back an optimistic update kept by the queue (the mutation was refused for good).
    func rollBackQueued(_ optimistic: Data) async

    /// Sends a queued mutation as `credentials`' user, writes its result and runs its refetch rules.
    /// When it is refused for good, its optimistic update is rolled back; a transport failure keeps it.
    func performQueued(
        document: String, variables: [String: JSONValue], credentials: Credentials,
        idempotencyKey: String, optimistic: Data?
    ) async throws(APIError)
}
