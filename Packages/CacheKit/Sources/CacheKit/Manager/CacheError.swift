import Foundation

/// Failures a caller of ``CacheManager`` can act on.
public enum CacheError: Error, Hashable, CustomStringConvertible {
    /// The value could not be encoded for storage; nothing was stored.
    case encoding(key: RedactedKey, reason: String)
    /// A feature name must be usable as a folder name: letters, digits, `-`, `_` and `.`.
    case invalidFeatureName(String)
    /// The data was cleared (a logout, another user's sign-in, an account deletion) after the work began;
    /// nothing was written.
    case cleared

    /// A sentence that says what is wrong.
    public var description: String {
        switch self {
        case .encoding(let key, let reason):
            "Could not encode the value for cache key \(key): \(reason)"
        case .invalidFeatureName(let name):
            "Invalid cache feature name \"\(name)\": use letters, digits, '-', '_' and '.' only"
        case .cleared:
            "The data was cleared after the work began; nothing was written"
        }
    }
}

extension CacheError: LocalizedError {
    /// A sentence for people; `description` is the form for logs.
    public var errorDescription: String? {
        switch self {
        case .encoding: "This could not be saved on this device."
        case .invalidFeatureName: "Something went wrong in the app. Try again, or update the app."
        case .cleared: "You signed out, so this was not saved."
        }
    }
}
