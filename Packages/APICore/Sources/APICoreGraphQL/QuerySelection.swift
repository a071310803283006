import APICore

/// A selection of a parsed operation, in APICore's own `Sendable` form (GraphQLSwift's AST is not
/// `Sendable`, so each operation is converted once, when it is built).
public indirect enum QuerySelection: Sendable, Hashable {
    /// A field, with its own selections when it is an object.
    case field(QueryField)
    /// An inline fragment or a named fragment's spread (inlined), with its type condition.
    case fragment(typeCondition: String?, selections: [QuerySelection])
}

/// A field of a selection set.
public struct QueryField: Sendable, Hashable {
    /// The field's name in the schema.
    public var name: String
    /// Its alias, if any: the key it has in the response, never in the store.
    public var alias: String?
    /// Its arguments as written (variables unresolved).
    public var arguments: [String: QueryArgument]
    /// Its selections; empty for a scalar field.
    public var selections: [QuerySelection]

    /// The key of the field in the response: the alias, else the name.
    public var responseKey: String { alias ?? name }

    /// Creates a field.
    public init(
        name: String, alias: String? = nil, arguments: [String: QueryArgument] = [:],
        selections: [QuerySelection] = []
    ) {
        self.name = name
        self.alias = alias
        self.arguments = arguments
        self.selections = selections
    }
}

/// An argument value as written in a document.
public indirect enum QueryArgument: Sendable, Hashable {
    /// `$name`, resolved from the operation's variables.
    case variable(String)
    /// A literal scalar or null.
    case literal(JSONValue)
    /// An enum value, such as `DESC`.
    case enumValue(String)
    /// A list.
    case list([QueryArgument])
    /// An input object.
    case object([String: QueryArgument])
}
