import APICore
import CacheKit
import HTTPTypes

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable {
    /// A fresh cached response; no request was made.
    case cache
    /// A full response from the server.
    case network
    /// A stale cached response the server confirmed with a 304; the body was not transferred.
    case revalidated
}

/// A decoded response and where it came from.
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// Where it came from.
    public var source: ResponseSource
    /// When the response was stored or last validated, its age (RFC 9111 §4.2.3, the origin's `Age`
    /// included), and its state: `Freshness/State-swift.enum/stale` when a stale response was
    /// served because its headers and the request allow it (or first by ``RESTClient/updates(for:)``
    /// while a fresh one is fetched), `Freshness/State-swift.enum/offline` when served because the
    /// server could not be reached, and by ``RESTClient/lastKnown(_:)``.
    public var freshness: Freshness
    /// The HTTP status of the (stored) response.
    public var status: Int
    /// Its header fields (after a 304, merged with the 304's).
    public var headerFields: HTTPFields

    /// The same response with its value transformed (a kit unwrapping its envelope).
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> APIResponse<T> {
        APIResponse<T>(
            value: try transform(value), source: source, freshness: freshness, status: status,
            headerFields: headerFields)
    }

    /// Whether the response is past its freshness lifetime (stale or offline).
    public var isStale: Bool { freshness.isStale }
}
