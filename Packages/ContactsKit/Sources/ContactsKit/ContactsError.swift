import APICore
import Foundation

/// Why a contacts use case failed.
public enum ContactsError: Error, Sendable, Hashable {
    /// Nobody is signed in.
    case signedOut
    /// The request failed (offline, a server error, …).
    case api(APIError)
    /// The device's file could not be read or written.
    case storage(reason: String)
    /// This needs the network and there is none: subscribing is never queued ("Connect to purchase").
    case requiresConnection
    /// The app has no mutation queue, so a change cannot wait for the network.
    case noQueue
}

extension ContactsError: LocalizedError {
    /// A sentence a screen can show.
    public var errorDescription: String? {
        switch self {
        case .signedOut: "Sign in to see your contacts."
        case .api(let error): error.errorDescription
        case .storage: "Your contacts could not be read on this device. Try again; if it persists, sign out and in again."
        case .requiresConnection: "Connect to purchase."
        case .noQueue: "This change cannot be kept until you are online. Try again when connected."
        }
    }
}
