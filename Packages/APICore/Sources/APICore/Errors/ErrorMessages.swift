import Foundation

/// The sentences a screen may show for APICore's errors, in one place: short, with no type name, no
/// internal reason and no personal data (`error.localizedDescription`). Each error's `description`
/// stays the precise, redacted form for logs; kits reuse these sentences for the errors they pass on.
public enum ErrorMessages {
    /// What a person reads when no server answered, or the answer never arrived.
    public static let offline = "You appear to be offline. Check your connection and try again."
    /// The request took longer than its timeout.
    public static let timedOut = "The server took too long to answer. Try again."
    /// The connection dropped mid-answer.
    public static let connectionLost = "The connection was lost. Try again."
    /// The caller (or the person) cancelled.
    public static let cancelled = "The request was cancelled."
    /// The server's certificate did not match the app's pins: possibly an attack, never retried.
    public static let insecureConnection = "A secure connection to the server could not be made."
    /// A request that could not be written, an operation that does not parse: the app's own mistake.
    public static let appProblem = "Something went wrong in the app. Try again, or update the app."
    /// The session ended (401).
    public static let signInAgain = "Your session has ended. Sign in again."
    /// The request belonged to a user who signed out meanwhile.
    public static let sessionChanged = "You signed out before this finished, so it was stopped."
    /// The server refused the signed-in user (403).
    public static let noAccess = "You don't have access to this."
    /// A body that did not decode as the app expected.
    public static let unreadableAnswer = "The server's answer could not be read. Try again later."
    /// A cache-only read found nothing stored.
    public static let notAvailableOffline = "This isn't available offline yet. Connect to load it."
    /// A mutation its kit declared never queued, attempted offline.
    public static let connectToContinue = "Connect to the internet to continue."
    /// A GraphQL `errors` array.
    public static let requestNotCompleted = "The server could not complete the request. Try again later."

    /// The sentence for an HTTP status the server answered with.
    public static func status(_ code: Int) -> String {
        switch code {
        case 401: signInAgain
        case 403: noAccess
        case 404, 410: "This could not be found. It may have been removed."
        case 408: timedOut
        case 409: "This was changed elsewhere. Reload and try again."
        case 429: "Too many requests. Wait a moment and try again."
        case 400..<500: "The request was refused."
        case 503: "The service is unavailable right now. Try again later."
        default: "The server had a problem. Try again later."
        }
    }
}

extension TransportError: CustomStringConvertible {
    /// The form for logs and `mib`'s output: the kind, and the host of a pin mismatch. Never a reason,
    /// which can hold a URL with its query.
    public var description: String {
        switch self {
        case .offline: "no server answered"
        case .timedOut: "timed out"
        case .connectionLost: "the connection dropped"
        case .cancelled: "cancelled"
        case .pinMismatch(let host): "\(host) did not prove a pinned key"
        case .invalidRequest: "the request cannot be written"
        case .responseTooLarge(let limit): "the answer was larger than \(limit) bytes"
        case .other: "the transport failed"
        }
    }
}

extension TransportError: LocalizedError {
    /// A sentence for people: ``ErrorMessages``.
    public var errorDescription: String? {
        switch self {
        case .offline, .other: ErrorMessages.offline
        case .timedOut: ErrorMessages.timedOut
        case .connectionLost: ErrorMessages.connectionLost
        case .cancelled: ErrorMessages.cancelled
        case .pinMismatch: ErrorMessages.insecureConnection
        case .invalidRequest, .responseTooLarge: ErrorMessages.appProblem
        }
    }
}

extension APIError: LocalizedError {
    /// A sentence for people: ``ErrorMessages``. `description` is the form for logs.
    public var errorDescription: String? {
        switch self {
        case .transport(let error): error.errorDescription
        case .cancelled: ErrorMessages.cancelled
        case .unauthorized: ErrorMessages.signInAgain
        case .forbidden: ErrorMessages.noAccess
        case .server(let error): ErrorMessages.status(error.status)
        case .status(let code, _): ErrorMessages.status(code)
        case .decoding: ErrorMessages.unreadableAnswer
        case .notCached: ErrorMessages.notAvailableOffline
        case .invalidRequest, .invalidOperation: ErrorMessages.appProblem
        case .graphQL: ErrorMessages.requestNotCompleted
        case .requiresConnection: ErrorMessages.connectToContinue
        case .sessionChanged: ErrorMessages.sessionChanged
        }
    }
}

extension GraphQLOperationError: LocalizedError {
    /// A sentence for people: the app's own operation is at fault.
    public var errorDescription: String? { ErrorMessages.appProblem }
}

extension JSONParseError: LocalizedError {
    /// A sentence for people.
    public var errorDescription: String? { ErrorMessages.unreadableAnswer }
}

extension ContainerError: LocalizedError {
    /// A sentence for people: a kit was wired wrongly, which only an update fixes.
    public var errorDescription: String? { ErrorMessages.appProblem }
}

extension PinningPolicyError: LocalizedError {
    /// A sentence for people: the app's pins are invalid, which only an update fixes.
    public var errorDescription: String? { ErrorMessages.appProblem }
}
