import APICore
import APICoreREST
import CacheKit
import Foundation

/// A query's or mutation's data and where it came from.
public struct GraphQLResult: Sendable, Hashable {
    /// The data, shaped like the operation (aliases as keys).
    public var data: [String: JSONValue]
    /// `ResponseSource/cache` (read from the normalized store) or `ResponseSource/network`.
    public var source: ResponseSource
    /// When its oldest field was written, its age, and its state: `Freshness/State-swift.enum/stale`
    /// when `CachePolicy/returnCacheDataAndFetch` delivered data older than its timeout before the
    /// fresh one, `Freshness/State-swift.enum/offline` when it was served because the server could
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
    /// from the tree by `JSONValueDecoder` (no JSON text in between), with `JSONDecoder`'s default strategies.
    /// - Throws: `APIError/decoding(path:reason:)` with the coding path (`account.transactions[2].amount`).
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
