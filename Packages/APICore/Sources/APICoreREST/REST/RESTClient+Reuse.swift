import APICore
import CacheKit
import Foundation

// Whether and how a stored response answers a request (RFC 9111 §4.2), and what the caller receives
// when it does.
extension RESTClient {
    /// How a stored response may be used for a request, by RFC 9111 §4.2 and the request's own
    /// directives: as it is (fresh), stale because the request or `stale-while-revalidate` allows
    /// it, or not without asking the origin.
    enum Reuse: Equatable {
        case fresh
        case staleAllowedByRequest
        case staleWhileRevalidating
        case revalidate
    }

    static func reuse(_ stored: StoredResponse, _ metadata: CacheEntryMetadata, at now: Date, request: CacheControl) -> Reuse {
        // The request's no-cache (a force reload), or a max-age the response is older than, goes to the
        // origin (with the stored validators).
        if request.noCache { return .revalidate }
        let remaining = metadata.expiresAt.map { $0.timeIntervalSince(now) } ?? .infinity
        // max-age=0 revalidates, as browsers do ("reload"), whatever the whole-second age; not a fresh
        // `immutable` response, which RFC 8246 §2 keeps from revalidation during its lifetime.
        if let maxAge = request.maxAge, maxAge == 0 || stored.currentAge(at: now) > TimeInterval(maxAge),
            !(stored.cacheControl.immutable && remaining > 0)
        {
            return .revalidate
        }
        if remaining > 0 {
            if let minFresh = request.minFresh, remaining < TimeInterval(minFresh) { return .revalidate }
            return .fresh
        }
        let response = stored.cacheControl
        guard !response.mustRevalidate, !response.noCache else { return .revalidate }
        let staleness = -remaining
        if let maxStale = request.maxStale, staleness <= TimeInterval(maxStale) { return .staleAllowedByRequest }
        if let window = response.staleWhileRevalidate, staleness <= TimeInterval(window) { return .staleWhileRevalidating }
        return .revalidate
    }

    /// A stored response as the caller receives it: its value (or, for a stored non-2xx status,
    /// the same typed error the network would have given), with `Age` generated, fresh until `expiresAt`.
    /// - Throws: ``APIError/decoding(path:reason:)`` when the stored body no longer decodes.
    func cachedResponse<R>(
        _ stored: StoredResponse, for request: APIRequest<R>, at now: Date,
        state: Freshness.State, expiresAt: Date? = nil
    )
        throws(APIError) -> APIResponse<R>
    {
        guard (200..<300).contains(stored.status) || request.returnsAnyStatus else {
            throw APIError(status: stored.status, body: stored.body)
        }
        var freshness = stored.freshness(state, at: now)
        freshness.expiresAt = expiresAt
        return APIResponse(
            value: try request.decode(stored.body), source: .cache,
            freshness: freshness, status: stored.status,
            headerFields: stored.fieldsServed(at: now))
    }
}
