import APICore
import APICoreOffline
import CacheKit
import Foundation

/// What the `MutationQueue` asks of the GraphQL client: optimistic updates that outlive the
/// process (kept beside the queued mutation as data), and sending with an idempotency key.
extension GraphQLClient: QueuedGraphQLSender {
    /// The name of the operation `document` holds; it is parsed as a fetch would parse it.
    public func queuedOperationName(_ document: String) throws(GraphQLOperationError) -> String? {
        try GraphQLOperation(document).name
    }

    /// Applies an optimistic response at enqueue; returns what it replaced, encoded for the queue.
    public func applyQueuedOptimistic(
        _ response: [String: JSONValue], document: String, variables: [String: JSONValue]
    ) async -> Data? {
        guard let operation = try? GraphQLOperation(document) else { return nil }
        let seen = generation
        let generation = adopt(await configuration.tokenProvider?.currentCredentials()?.userId, since: seen) ?? seen
        return applyOptimistic(response, operation, variables: variables, ifGeneration: generation).map(Self.encode)
    }

    /// Rolls back an optimistic update kept by the queue (the mutation was refused for good).
    public func rollBackQueued(_ optimistic: Data) async {
        guard let write = Self.decode(optimistic) else { return }
        rollBack(write, keeping: [:], ifGeneration: state.withLock { $0.generation })
    }

    /// Sends a queued mutation as `credentials`' user, writes its result and runs its refetch rules.
    /// When it is refused for good, its optimistic update is rolled back; a transport failure keeps it.
    /// - Throws: `APIError.sessionChanged` when `credentials` are no longer the session's (a logout, another user's
    ///   sign-in since the queue read them): nothing is sent, and the store stays the current user's.
    public func performQueued(
        document: String, variables: [String: JSONValue], credentials: Credentials,
        idempotencyKey: String, optimistic: Data?
    ) async throws(APIError) {
        let operation: GraphQLOperation
        do {
            operation = try GraphQLOperation(document)
        } catch {
            throw .invalidOperation(error)
        }
        let seen = generation
        // Sent with the session's credentials now, if they are still this user's (a logout and a sign-in of the same
        // user since the queue read them: the new token, never the revoked one).
        guard let current = await configuration.tokenProvider?.currentCredentials(), current.userId == credentials.userId else {
            throw .sessionChanged
        }
        _ = try await perform(
            operation, variables: variables, credentials: current,
            optimistic: optimistic.flatMap(Self.decode), generation: adopt(current.userId, since: seen) ?? seen,
            idempotencyKey: idempotencyKey, queued: true)
    }

    // MARK: Encoding an optimistic write

    private static func encode(_ write: OptimisticWrite) -> Data {
        JSONValue.array(
            write.fields.map { field in
                .object([
                    "key": .string(field.key), "field": .string(field.field),
                    "previous": field.previous.map(encode) ?? .null,
                    "previousWrittenAt": field.previousWrittenAt.map { .double($0.timeIntervalSince1970) } ?? .null,
                    "optimistic": encode(field.optimistic),
                ])
            }
        ).serialized()
    }

    private static func decode(_ data: Data) -> OptimisticWrite? {
        guard case .array(let items)? = try? JSONValue.parse(data) else { return nil }
        var fields: [OptimisticWrite.Field] = []
        for case .object(let item) in items {
            guard let key = item["key"]?.stringValue, let field = item["field"]?.stringValue,
                let optimistic = item["optimistic"].flatMap(decode)
            else { return nil }
            let writtenAt: Date? =
                switch item["previousWrittenAt"] {
                case .double(let seconds)?: Date(timeIntervalSince1970: seconds)
                case .int(let seconds)?: Date(timeIntervalSince1970: Double(seconds))
                default: nil
                }
            fields.append(
                .init(
                    key: key, field: field, previous: item["previous"].flatMap(decode),
                    previousWrittenAt: writtenAt, optimistic: optimistic))
        }
        return OptimisticWrite(fields: fields)
    }

    private static func encode(_ value: RecordValue) -> JSONValue {
        switch value {
        case .value(let json): .object(["v": json])
        case .reference(let key): .object(["r": .string(key)])
        case .list(let items): .object(["l": .array(items.map(encode))])
        }
    }

    private static func decode(_ json: JSONValue) -> RecordValue? {
        guard case .object(let object) = json else { return nil }
        if let value = object["v"] { return .value(value) }
        if let key = object["r"]?.stringValue { return .reference(key) }
        if case .array(let items)? = object["l"] {
            let decoded = items.compactMap(decode)
            return decoded.count == items.count ? .list(decoded) : nil
        }
        return nil
    }
}
