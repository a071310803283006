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
    /// The purchase was sent but no answer came (a timeout, a dropped connection, a server error): it may
    /// have gone through. Subscribing again asks the server with the same request, which answers with the
    /// first outcome: the user is never charged twice.
    case purchaseOutcomeUnknown
    /// The app has no mutation queue, so a change cannot wait for the network.
    case noQueue
    /// The contact or circle is not on the device (or, for enrichment, not on the server): deleted since
    /// the screen showed it.
    case notFound
    /// The contact's photo is not on the server (a missing file, not a connection that failed).
    case photoMissing
}

extension ContactsError: CustomStringConvertible {
    /// The form for logs and `mib sync --json`: the kind, a storage failure's reason from the system, and a
    /// wrapped `APIError`'s own redacted form; never a server message, a body or an address.
    public var description: String {
        switch self {
        case .signedOut: "nobody is signed in"
        case .api(let error): "the contacts service could not be reached or refused: \(error)"
        case .storage(let reason): "the address book could not be stored: \(reason)"
        case .requiresConnection: "this needs a connection"
        case .purchaseOutcomeUnknown: "the purchase was sent and no answer came"
        case .noQueue: "no mutation queue to keep the change"
        case .notFound: "no such contact or circle"
        case .photoMissing: "the photo is not on the server"
        }
    }
}

extension ContactsError: LocalizedError {
    /// A sentence a screen can show.
    public var errorDescription: String? {
        switch self {
        case .signedOut: "Sign in to see your contacts."
        case .api(let error): error.errorDescription
        case .storage: "Your contacts could not be read on this device. Try again; if it persists, sign out and in again."
        case .requiresConnection: "Connect to purchase."
        case .purchaseOutcomeUnknown: "We could not confirm your purchase. Try again: you will not be charged twice."
        case .noQueue: "This change cannot be kept until you are online. Try again when connected."
        case .notFound: "This contact or circle no longer exists."
        case .photoMissing: "This photo is not available."
        }
    }
}
