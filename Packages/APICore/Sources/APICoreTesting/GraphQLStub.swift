import APICore
import Foundation

/// Canned GraphQL responses with the `__typename`s a real server sends. Without them a response is
/// stored but never read back from the cache (every selection set asks for `__typename`, the root's
/// included), and an object is never keyed by its kit's provider.
///
/// ```swift
/// let body = GraphQLStub.body(["account": ["id": "100", "balance": 5]], typenames: ["account": "Account"])
/// transport.stub(.post, "/graphql", status: 200, body: body)
/// ```
public enum GraphQLStub {
    /// `data` with `__typename` added: `root` at the root, and `typenames[field]` on every object (or
    /// each object of a list) under a field of that name, at any depth. Objects that have one keep it.
    public static func data(
        _ data: [String: JSONValue], root: String = "Query",
        typenames: [String: String] = [:]
    ) -> [String: JSONValue] {
        var data = data
        if data["__typename"] == nil { data["__typename"] = .string(root) }
        return adding(typenames, to: data)
    }

    /// A whole response body, `{"data": …}`, with the typenames added as ``data(_:root:typenames:)`` does.
    public static func body(_ data: [String: JSONValue], root: String = "Query", typenames: [String: String] = [:]) -> Data {
        JSONValue.object(["data": .object(Self.data(data, root: root, typenames: typenames))]).serialized()
    }

    private static func adding(_ typenames: [String: String], to object: [String: JSONValue]) -> [String: JSONValue] {
        var object = object
        for (field, value) in object where field != "__typename" {
            object[field] = typed(value, as: typenames[field], typenames)
        }
        return object
    }

    private static func typed(_ value: JSONValue, as typename: String?, _ typenames: [String: String]) -> JSONValue {
        switch value {
        case .object(var child):
            if child["__typename"] == nil, let typename { child["__typename"] = .string(typename) }
            return .object(adding(typenames, to: child))
        case .array(let items):
            return .array(items.map { typed($0, as: typename, typenames) })
        default:
            return value
        }
    }
}
