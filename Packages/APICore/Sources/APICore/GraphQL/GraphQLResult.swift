import CacheKit
import Foundation

/// A query's or mutation's data and where it came from.
public struct GraphQLResult: Sendable, Hashable {
    /// The data, shaped like the operation (aliases as keys).
    public var data: [String: JSONValue]
    /// ``ResponseSource/cache`` (read from the normalized store) or ``ResponseSource/network``.
    public var source: ResponseSource
    /// When its oldest field was written, its age, and its state: ``Freshness/State-swift.enum/stale``
    /// when ``CachePolicy/returnCacheDataAndFetch`` delivered data older than its timeout before the
    /// fresh one, ``Freshness/State-swift.enum/offline`` when it was served because the server could
    /// not be reached.
    public var freshness: Freshness

    /// Creates a result.
    public init(data: [String: JSONValue], source: ResponseSource, freshness: Freshness) {
        self.data = data
        self.source = source
        self.freshness = freshness
    }

    /// Whether the data is older than its timeout (stale or offline).
    public var isStale: Bool { freshness.isStale }

    /// The data decoded into your own `Decodable` type (shaped like the operation, aliases as keys), straight
    /// from the tree by ``JSONValueDecoder`` (no JSON text in between), with `JSONDecoder`'s default strategies.
    /// - Throws: ``APIError/decoding(path:reason:)`` with the coding path (`account.transactions[2].amount`).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(APIError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: .object(data))
        } catch let error as DecodingError {
            throw APIError(error)
        } catch {
            throw .decoding(path: "", reason: "\(error)")
        }
    }
}

/// One entry of a response's `errors` array.
public struct GraphQLResponseError: Sendable, Hashable, Codable {
    /// What went wrong, for people.
    public var message: String
    /// Where in the data: field names and list indexes (`["account", "transactions", 2]`).
    public var path: [JSONValue]?
    /// Server-defined details, such as `{"code": "INSUFFICIENT_FUNDS"}`.
    public var extensions: [String: JSONValue]?

    /// Creates an error.
    public init(message: String, path: [JSONValue]? = nil, extensions: [String: JSONValue]? = nil) {
        self.message = message
        self.path = path
        self.extensions = extensions
    }

    /// Reads one entry of an `errors` array; a message that is not a string is kept as its JSON.
    init(json: JSONValue) {
        guard case .object(let object) = json else {
            self.init(message: String(decoding: json.serialized(), as: UTF8.self))
            return
        }
        let message = object["message"].map { $0.stringValue ?? String(decoding: $0.serialized(), as: UTF8.self) }
        let path: [JSONValue]? = if case .array(let path)? = object["path"] { path } else { nil }
        let extensions: [String: JSONValue]? = if case .object(let extensions)? = object["extensions"] { extensions } else { nil }
        self.init(message: message ?? "(no message)", path: path, extensions: extensions)
    }

    /// `extensions.code`, when the server set one.
    public var code: String? { extensions?["code"]?.stringValue }

    /// The path as text: `account.transactions[2]`.
    public var pathDescription: String {
        (path ?? []).reduce(into: "") { text, element in
            switch element {
            case .int(let index): text += "[\(index)]"
            default: text += (text.isEmpty ? "" : ".") + (element.stringValue ?? "?")
            }
        }
    }
}

/// A response that carried an `errors` array: every error, and the partial data that came with it
/// (never written to the cache).
public struct GraphQLErrors: Sendable, Hashable {
    /// The errors, in the server's order.
    public var errors: [GraphQLResponseError]
    /// The data that was resolved, if any.
    public var data: [String: JSONValue]?

    /// Creates the failure.
    public init(errors: [GraphQLResponseError], data: [String: JSONValue]?) {
        self.errors = errors
        self.data = data
    }
}
