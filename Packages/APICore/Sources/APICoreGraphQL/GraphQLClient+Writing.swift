import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

// Writing to the normalized store: a response, or the app's own local data.
extension GraphQLClient {
    /// Writes data into the store (unless a clear happened since `generation`) and tells the
    /// watchers whose fields changed.
    @discardableResult
    func write(
        _ data: [String: JSONValue], _ operation: GraphQLOperation, variables: [String: JSONValue],
        ifGeneration generation: Int? = nil
    ) -> Set<FieldPath> {
        warnIfTypenamesAreMissing(data, operation)
        let changed = state.withLock { state -> Set<FieldPath> in
            guard generation == nil || generation == state.generation else { return [] }
            do {
                return try cache.write(data, for: operation, variables: variables)
            } catch {
                environment.logger.warning("Could not write GraphQL data", metadata: ["error": "\(error)"])
                return []
            }
        }
        if !changed.isEmpty {
            environment.metrics.metrics(store: "normalized", feature: configuration.cacheName).recordWrite()
            notifyWatchers(changed)
        }
        return changed
    }

    /// Reads a query's data from the store, with no freshness check and no request (offline screens,
    /// tests).
    /// - Throws: ``CacheReadMiss`` naming the missing or corrupt path, or
    ///   `APIError/invalidOperation(_:)`.
    public func readLocal<Q: GraphQLQuery>(_ query: Q) throws -> [String: JSONValue] {
        try cache.read(try query.operation(), variables: query.variables).data
    }

    /// Writes a query's data into the store as if the server had sent it (seed data for offline
    /// use, tests); watchers that read a changed field deliver again.
    /// - Returns: the fields that changed.
    @discardableResult
    public func writeLocal<Q: GraphQLQuery>(_ query: Q, data: [String: JSONValue]) throws(APIError) -> Set<FieldPath> {
        write(data, try query.operation(), variables: query.variables)
    }
}
