import Foundation

/// Why an operation could not be built.
public enum GraphQLOperationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document does not parse.
    case syntax(message: String, line: Int, column: Int)
    /// A fragment spread names a fragment the document does not define.
    case unknownFragment(String)
    /// Something this client does not handle (subscriptions, several operations in one document).
    case unsupported(String)
    /// A required variable was not given.
    case missingVariable(String, operation: String)

    /// A sentence with the position or name involved.
    public var description: String {
        switch self {
        case .syntax(let message, let line, let column): "GraphQL syntax error at \(line):\(column): \(message)"
        case .unknownFragment(let name): "unknown fragment '\(name)'"
        case .unsupported(let what): "unsupported: \(what)"
        case .missingVariable(let name, let operation): "operation '\(operation)' needs variable '$\(name)'"
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
    package init(json: JSONValue) {
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
