import APICore
import CacheKit
import Foundation

/// Why ``RESTClient/image(at:for:in:feature:)`` has no image: its request failed, or the image cache
/// refused what came (not an image) or the wait for it.
public enum ImageRequestError: Error, Sendable {
    /// The request for the image failed (the server's answer, the network, or another user signed in).
    case request(APIError)
    /// The image cache refused the bytes, or the wait was cancelled.
    case cache(ImageCacheError)

    /// The failure as the image cache words it (a failed request becomes its `loadFailed`).
    public var imageCacheError: ImageCacheError {
        switch self {
        case .request(let error): .loadFailed(reason: "\(error)")
        case .cache(let error): error
        }
    }
}

extension ImageRequestError: LocalizedError {
    /// A sentence a screen can show: the request's or the image cache's own.
    public var errorDescription: String? {
        switch self {
        case .request(let error): error.errorDescription
        case .cache(let error): error.errorDescription
        }
    }
}

extension ImageRequestError: CustomStringConvertible {
    /// The precise form, for logs (as redacted as the error it carries).
    public var description: String {
        switch self {
        case .request(let error): "image request: \(error)"
        case .cache(let error): "image cache: \(error)"
        }
    }
}

// Images on the app's server, kept per user in an `ImageCache`: the one way the app and its kits load them, so
// every load is bound to the user it is kept for.
extension RESTClient {
    /// The image at `path` on the app's server for `user`: from `images` when kept, else fetched once (concurrent
    /// calls share the load) and kept when its bytes are an image. The request is sent with `user`'s token only:
    /// when another user signed in meanwhile it fails with `APIError.sessionChanged` and nothing is kept.
    /// - Parameters:
    ///   - path: a path on the app's server (an absolute URL is refused unless on the client's own origin).
    ///   - user: whose image it is; it is kept for this user only.
    ///   - images: where images are kept.
    ///   - feature: the request's feature name, for telemetry and the route-level settings.
    /// - Throws: ``ImageRequestError/request(_:)`` when the request failed, ``ImageRequestError/cache(_:)``
    ///   when the bytes are no image or the wait was cancelled.
    public func image(at path: String, for user: String, in images: ImageCache, feature: String) async throws(ImageRequestError)
        -> Data
    {
        let failure = Locked<APIError?>(nil)
        do {
            return try await images.image(forKey: path, user: user) { [self] in
                var request = APIRequest<Data>(path: path, feature: feature)
                request.owner = user  // kept for `user`: never fetched with the token of whoever signed in meanwhile
                do throws(APIError) {
                    return try await send(request, policy: .fetchIgnoringCacheCompletely).value
                } catch {
                    failure.withLock { $0 = error }
                    throw error
                }
            }
        } catch {
            if let cause = failure.withLock({ $0 }) { throw .request(cause) }
            throw .cache(error)
        }
    }
}
