import Foundation

/// A change made on the device and queued for the server: what a screen follows to show "Will sync when
/// online" until it is sent, or to say it was refused (``ContactsClient/changeState(_:)``,
/// ``ContactsClient/observeChange(_:)``).
public struct ContactsChange: Sendable, Hashable, Identifiable {
    /// Where a queued change stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Kept on the device and in the queue: shown, not yet confirmed by the server.
        case pending
        /// The server took it.
        case sent
        /// The server refused it for good; it was undone on the device (``ContactsEvent/changeRefused(mutation:error:)``).
        case refused
        /// The change never reached the queue (the app ended first, or the queue refused it), so it was never sent:
        /// undone on the device, the server's value restored (``ContactsEvent/changeNotSent(change:)``).
        case notSent
    }

    /// The queued mutation's idempotency key.
    public let id: String
    /// What it does (``ContactsClient/Mutation``).
    public let mutation: String
    /// The record it changes (a contact's or a circle's id), if one.
    public let recordId: String?
}
