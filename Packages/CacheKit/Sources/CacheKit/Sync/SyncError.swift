import Foundation

/// What a ``SyncSource`` throws for the runner to act on, beyond its own errors.
public enum SyncError: Error, Sendable, Hashable {
    /// The server no longer accepts the changes token an incremental sync asked since (its change log
    /// does not reach back to it, or the token is ahead of the server's own): the runner starts one full
    /// sync instead, and its report says so (``SyncReport/fellBackToFullSync``).
    case changesTokenRejected
    /// The run's owner is no longer the signed-in user, or their data was cleared meanwhile: nothing more
    /// is fetched or stored (``SyncOutcome/sessionEnded``).
    case sessionEnded
}

extension SyncError: LocalizedError {
    /// A sentence for people.
    public var errorDescription: String? {
        switch self {
        case .changesTokenRejected: "Your data is being brought up to date in full."
        case .sessionEnded: "The sync stopped because you signed out."
        }
    }
}
