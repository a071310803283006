import APICore
import APICoreOffline
import Foundation

/// Why a catalog use case failed, typed so a screen can act on each case.
public enum CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `limit` is outside 1...100; no request was sent.
    case invalidLimit(Int)
    /// The slug is empty or has characters a slug never has; no request was sent.
    case invalidSlug(String)
    /// The server refused the cursor (`INVALID_CURSOR`): the funnel it points to changed or is
    /// gone. ``CatalogClient/allPages(limit:filter:policy:)`` restarts once before reporting it.
    case invalidCursor(message: String)
    /// No funnel has this slug (404).
    case notFound(slug: String)
    /// Any other failure: offline, a 500, a body that does not decode (see `APIError`).
    case api(APIError)
    /// A change could not be queued (nobody signed in, or the queue's file could not be written).
    case queue(MutationQueueError)

    /// The error for an APICore failure, recognising the catalog's own codes.
    init(_ error: APIError, slug: String? = nil) {
        switch (error.serverCode, error) {
        case ("INVALID_CURSOR", .server(let server)): self = .invalidCursor(message: server.message)
        case ("NOT_FOUND", _) where slug != nil: self = .notFound(slug: slug ?? "")
        default: self = .api(error)
        }
    }

    /// Whether `error` means no server answered (see ``APIError/reachedNoServer``).
    static func isOffline(_ error: any Error) -> Bool {
        switch error {
        case CatalogError.api(let api): api.reachedNoServer
        case let api as APIError: api.reachedNoServer
        default: false
        }
    }

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .invalidLimit(let limit): "limit must be from 1 to 100, not \(limit)"
        case .invalidSlug(let slug): "'\(slug)' is not a funnel slug"
        // The server's message stays out of the log form: it is the server's words, not the app's.
        case .invalidCursor: "the pagination cursor was refused (INVALID_CURSOR)"
        case .notFound(let slug): "no funnel '\(slug)'"
        case .api(let error): "the catalog could not be loaded: \(error)"
        case .queue(let error): "the change could not be queued: \(error)"
        }
    }
}

extension CatalogError: LocalizedError {
    /// A sentence for people; APICore's for what it passes on.
    public var errorDescription: String? {
        switch self {
        case .invalidLimit, .invalidSlug: ErrorMessages.appProblem
        case .invalidCursor: "The list changed. Reload it to continue."
        case .notFound: ErrorMessages.status(404)
        case .api(let error): error.errorDescription
        case .queue(let error): error.errorDescription
        }
    }
}
