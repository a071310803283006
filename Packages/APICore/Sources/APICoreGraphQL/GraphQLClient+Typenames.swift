import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

extension GraphQLClient {
    /// Logs once per operation when a response lacks a `__typename` its document asked for: the data is
    /// stored, but a cache read needs every selected field, so it is never read back (each fetch goes to
    /// the network) and an object without one is never keyed by its kit. Canned test responses are the
    /// usual cause: `APICoreTesting.GraphQLStub` adds the typenames.
    func warnIfTypenamesAreMissing(_ data: [String: JSONValue], _ operation: GraphQLOperation) {
        let name = operation.name ?? operation.document
        let first = state.withLock { $0.typenameChecked.insert(name).inserted }
        guard first,
            let path = Self.missingTypename(
                in: data, selections: operation.selections,
                path: operation.kind == .mutation ? RootKey.mutation : RootKey.query)
        else { return }
        environment.logger.warning(
            "A GraphQL response has no __typename; it will not be read back from the cache",
            metadata: [
                "operation": "\(operation.name ?? "anonymous")", "path": "\(path)",
                "fix": "send __typename on every object, the root included (\"Query\"); APICoreTesting.GraphQLStub adds them",
            ])
    }

    /// The path of the first object (the root included) that lacks a `__typename` its selections ask for.
    static func missingTypename(in object: [String: JSONValue], selections: [QuerySelection], path: String) -> String? {
        for selection in selections {
            switch selection {
            case .field(let field) where field.name == "__typename":
                if object[field.responseKey] == nil { return "\(path).__typename" }
            case .field(let field) where !field.selections.isEmpty:
                switch object[field.responseKey] {
                case .object(let child)?:
                    if let missing = missingTypename(in: child, selections: field.selections, path: "\(path).\(field.responseKey)") {
                        return missing
                    }
                case .array(let items)?:
                    for (index, item) in items.enumerated() {
                        guard case .object(let child) = item else { continue }
                        if let missing = missingTypename(
                            in: child, selections: field.selections,
                            path: "\(path).\(field.responseKey)[\(index)]")
                        {
                            return missing
                        }
                    }
                default:
                    continue
                }
            case .field:
                continue
            case .fragment(_, let nested):
                if let missing = missingTypename(in: object, selections: nested, path: path) { return missing }
            }
        }
        return nil
    }
}
