/// Whether a mutation may wait in the `MutationQueue` while offline. A kit declares it per
/// mutation name with ``KitRegistry/declareMutation(_:_:)``.
public enum MutationPolicy: String, Sendable, Hashable {
    /// It may be queued and sent when the network returns (editing, favoriting, sending a message).
    case queueable
    /// It needs the network now (a payment, a purchase): it is never queued, and fails at once with
    /// ``APIError/requiresConnection(operation:)`` or `MutationQueueError/requiresConnection(mutation:)`.
    case requiresConnection
}
