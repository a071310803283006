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
    /// Whether it is a stale cached response served because the server could not be reached (only
    /// when its headers allow it: never with `must-revalidate` or `no-cache`), or delivered first by
    /// ``RESTClient/updates(for:)`` while a fresh one is fetched.
    public var isStale: Bool
    /// The HTTP status of the (stored) response.
    public var status: Int
    /// Its header fields (after a 304, merged with the 304's).
    public var headerFields: HTTPFields
}
