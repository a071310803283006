import APICore
import APICoreOffline
import Foundation

/// Why a chat-history use case failed.
public enum ChatHistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in.
    case signedOut
    /// The question or message is empty, or longer than 2,000 characters; nothing was queued.
    case invalidText
    /// The local history could not be read or written.
    case storage(reason: String)
    /// The change could not be queued.
    case queue(MutationQueueError)
    /// The server could not be reached or refused (see `APIError`).
    case api(APIError)

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .signedOut: "nobody is signed in"
        case .invalidText: "a message must have 1 to 2,000 characters"
        case .storage(let reason): "the chat history could not be stored: \(reason)"
        case .queue(let error): "the message could not be queued: \(error)"
        case .api(let error): "the chat service could not be reached or refused: \(error)"
        }
    }
}

extension ChatHistoryError: LocalizedError {
    /// A sentence for people; APICore's for what it passes on.
    public var errorDescription: String? {
        switch self {
        case .signedOut: "Sign in to see your conversations."
        case .invalidText: "Write a message of up to 2,000 characters."
        case .storage: "Your conversations could not be saved on this device. Free some space and try again."
        case .queue(let error): error.errorDescription
        case .api(let error): error.errorDescription
        }
    }
}
