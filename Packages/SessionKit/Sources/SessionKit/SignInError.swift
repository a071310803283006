import APICore
import Foundation

/// Why signing in failed. The first two are found before any request, with the same rules the
/// backend applies (`CredentialRules`), so a form can show them inline.
public enum SignInError: Error, Sendable, Hashable {
    /// The e-mail is not a practical RFC 5322 address; `message` is what to show below the field.
    case invalidEmail(message: String)
    /// The password misses these requirements, each reported so a form can tick them off.
    case weakPassword([CredentialRules.PasswordRequirement])
    /// The server refused the e-mail and password.
    case rejected(message: String)
    /// Too many attempts from this device: the server asks to wait `retryAfter` (when it said) before
    /// trying again. A sign-in is the user's action, so it is never retried behind their back.
    case rateLimited(retryAfter: Duration?)
    /// The server answered something else, or could not be reached (`APIError/transport(_:)`).
    case api(APIError)
    /// The token could not be kept; the user is not signed in.
    case tokenStorage(TokenStoreError)
    /// The previous user's data could not be cleared from these caches (by name), so nobody is signed in:
    /// a new user never sees a screen that could read it. Show "Could not prepare the app; try again";
    /// each sign-in retries the clear, and the next one that completes lets the user in.
    case previousUserDataNotCleared(participants: [String])
}

extension SignInError: CustomStringConvertible {
    /// The form for logs and `mib`'s output: what failed, without the e-mail or the server's message.
    public var description: String {
        switch self {
        case .invalidEmail: "sign-in refused before sending: the e-mail is not an address"
        case .weakPassword(let missing): "sign-in refused before sending: the password lacks \(missing.map(\.rawValue))"
        case .rejected: "the server refused the e-mail and password"
        case .rateLimited(let wait): "too many attempts; retry after \(wait.map { "\($0)" } ?? "a while")"
        case .api(let error): "sign-in failed: \(error)"
        case .tokenStorage(let error): "the token could not be kept: \(error)"
        case .previousUserDataNotCleared(let participants): "the previous user's data is not cleared from \(participants)"
        }
    }
}

extension SignInError: LocalizedError {
    /// A sentence for people; APICore's for what it passes on.
    public var errorDescription: String? {
        switch self {
        case .invalidEmail(let message): message
        case .weakPassword: "Choose a stronger password."
        case .rejected: "The e-mail or password is incorrect."
        case .rateLimited: "Too many attempts. Wait a moment and try again."
        case .api(let error): error.errorDescription
        case .tokenStorage: "You could not be signed in on this device. Try again."
        case .previousUserDataNotCleared: "The app could not be prepared for you. Try again."
        }
    }
}
