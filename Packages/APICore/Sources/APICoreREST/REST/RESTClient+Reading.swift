import APICore
import CacheKit
import Foundation
import HTTPTypes

// Reading without the usual round trip: the last known response, a stream of updates, and forwarding for
// an HTTP intermediary.
extension RESTClient {
    /// The last response stored for a GET request, however old and whatever its headers say, labelled
    /// `Freshness/State-swift.enum/offline` with its age; `nil` when none is stored for the signed-in
    /// user, or it is not a 2xx, or it no longer decodes. Never sends a request.
    ///
    /// This is a history view, not a cache hit (RFC 9111 §6): a screen that could not load may show
    /// the last data a person saw, labelled "Offline · last updated 3 h ago", even when the response
    /// said `must-revalidate` or `no-cache` and so can never answer ``send(_:policy:)`` stale.
    public func lastKnown<R>(_ request: APIRequest<R>) async -> APIResponse<R>? {
        guard request.method == .get, let prepared = try? await prepare(request),
            let (stored, _) = cache.lookup(prepared.key, requester: prepared.requester, requestFields: prepared.fields),
            (200..<300).contains(stored.status)
        else { return nil }
        return try? cachedResponse(stored, for: request, at: environment.clock.now(), state: .offline)
    }

    /// Stale-while-revalidate: the cached response at once (fresh, or stale when its headers allow
    /// serving it stale, then marked ``APIResponse/isStale``), then the server's answer, which is
    /// stored. The stream ends after the server's answer, or with its error. A request other than a
    /// GET is simply sent, once.
    public func updates<R>(for request: APIRequest<R>) -> AsyncThrowingStream<APIResponse<R>, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    guard request.method == .get else {
                        continuation.yield(try await self.send(request))
                        continuation.finish()
                        return
                    }
                    let prepared = try await self.prepare(request)
                    var conditional: StoredResponse?
                    if let (stored, metadata) = self.cache.lookup(
                        prepared.key, requester: prepared.requester,
                        requestFields: prepared.fields)
                    {
                        let isFresh = metadata.isFresh(at: self.environment.clock.now())
                        if isFresh || stored.allowsStaleOnError, let value = try? request.decode(stored.body) {
                            continuation.yield(
                                APIResponse(
                                    value: value, source: .cache,
                                    freshness: stored.freshness(isFresh ? .fresh : .stale, at: self.environment.clock.now()),
                                    status: stored.status,
                                    headerFields: stored.fieldsServed(at: self.environment.clock.now())))
                        }
                        conditional = stored.hasValidators ? stored : nil
                    }
                    let exchange = try await self.fetch(request, prepared, conditional: conditional, store: true)
                    continuation.yield(try self.response(from: exchange, for: request))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends a request as an HTTP intermediary would (`mib proxy`): through the same cache, policies
    /// and revalidation as ``send(_:policy:)``, but whatever the status, the response is returned
    /// with its raw body instead of being thrown as an `APIError`. A GET with a single `Range` is answered
    /// from a fresh stored complete response with a 206 and its `Content-Range`.
    ///
    /// - Parameters:
    ///   - method: the method, sent unchanged; only a GET is read from or written to the cache.
    ///   - url: the absolute URL, query included.
    ///   - headerFields: the request's fields, sent unchanged (`Vary` is matched against them).
    ///   - body: the body, if any.
    ///   - policy: how the cache is used.
    /// - Returns: the response; ``APIResponse/source`` and ``APIResponse/isStale`` say whether the cache
    ///   answered, and a reused response carries `Age`.
    /// - Throws: `APIError` only when no response could be had (transport errors, an invalid URL, or
    ///   `APIError/notCached` under ``CachePolicy/returnCacheDataDontFetch``).
    public func forward(
        method: HTTPRequest.Method, url: String, headerFields: HTTPFields, body: Data?,
        policy: CachePolicy = .default
    ) async throws(APIError) -> APIResponse<Data> {
        if method == .get, policy == .default, let ranged = await rangeFromCache(url: url, headerFields: headerFields) {
            return ranged
        }
        var request = APIRequest<Data>(method: method, path: url, headerFields: headerFields, body: body, feature: "proxy")
        request.returnsAnyStatus = true
        return try await send(request, policy: policy)
    }
}
