import Foundation

/// Why ``ImageCache`` could not give an image.
public enum ImageCacheError: Error, Sendable, Hashable {
    /// The loader's bytes are not an image (``ImageFormat``): nothing was stored.
    case notAnImage(bytes: Int)
    /// The loader failed (its error's description): nothing was stored.
    case loadFailed(reason: String)
    /// The task waiting for the image was cancelled.
    case cancelled
}

extension ImageCacheError: LocalizedError {
    /// A sentence a screen can show.
    public var errorDescription: String? {
        switch self {
        case .notAnImage: "The picture could not be shown: what arrived was not an image."
        case .loadFailed: "The picture could not be loaded. Check your connection and try again."
        case .cancelled: "Loading the picture was stopped."
        }
    }
}

extension ImageCacheError: CustomStringConvertible {
    /// The precise form, for logs.
    public var description: String {
        switch self {
        case .notAnImage(let bytes): "not an image (\(bytes) bytes)"
        case .loadFailed(let reason): "load failed: \(reason)"
        case .cancelled: "cancelled"
        }
    }
}
