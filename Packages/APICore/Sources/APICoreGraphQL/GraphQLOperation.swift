import APICore
import GraphQL

/// A GraphQL query or mutation, parsed once per operation type (parsing a 50-field query costs
/// ~200 µs here, far more than a cache hit), with `__typename` added to every selection set so
/// every object can be keyed.
///
/// ```swift
/// let balance = try GraphQLOperation("""
///     query Balance($id: ID!) { account(id: $id) { id balance } }
///     """)
/// ```
public struct GraphQLOperation: Sendable, Hashable {
    /// Query or mutation.
    public enum Kind: String, Sendable, Hashable {
        /// Read, cached.
        case query
        /// Write; its result is normalized into the store.
        case mutation
    }

    /// The operation's name (`Balance`), used by refetch rules.
    public let name: String?
    /// Query or mutation.
    public let kind: Kind
    /// The root selections, named fragments inlined.
    public let selections: [QuerySelection]
    /// The same selections flattened for decoding from records, built once with the operation.
    let plan: SelectionPlan
    /// Variables that must be given: non-null and without a default.
    public let requiredVariables: Set<String>
    /// The document sent to the server: the operation with `__typename` in every selection set and
    /// its fragments inlined.
    public let document: String

    /// Parses `source`, which holds one query or mutation and any fragments it uses.
    /// - Throws: `GraphQLOperationError` with the line and column of the problem.
    public init(_ source: String) throws(GraphQLOperationError) {
        let parsed: Document
        do {
            parsed = try GraphQL.parse(source: source)
        } catch let error as GraphQLError {
            let location = error.locations.first
            throw .syntax(message: error.message, line: location?.line ?? 0, column: location?.column ?? 0)
        } catch {
            throw .syntax(message: "\(error)", line: 0, column: 0)
        }
        var fragments: [String: FragmentDefinition] = [:]
        var operations: [OperationDefinition] = []
        for definition in parsed.definitions {
            if let fragment = definition as? FragmentDefinition { fragments[fragment.name.value] = fragment }
            if let operation = definition as? OperationDefinition { operations.append(operation) }
        }
        guard operations.count == 1, let operation = operations.first else {
            throw .unsupported("a document must hold exactly one operation (found \(operations.count))")
        }
        switch operation.operation {
        case .query: kind = .query
        case .mutation: kind = .mutation
        case .subscription: throw .unsupported("subscriptions are not supported")
        }
        name = operation.name?.value
        var converter = Converter(fragments: fragments)
        selections = try converter.convert(operation.selectionSet)
        plan = SelectionPlan(selections)
        requiredVariables = Set(
            operation.variableDefinitions.compactMap { definition in
                definition.type is NonNullType && definition.defaultValue == nil ? definition.variable.name.value : nil
            })
        let variables = operation.variableDefinitions.map { GraphQL.print(ast: $0) }
        let header =
            [kind.rawValue, name].compactMap { $0 }.joined(separator: " ")
            + (variables.isEmpty ? "" : "(\(variables.joined(separator: ", ")))")
        document = header + " " + QueryPrinter.print(selections)
    }

    /// Checks that every required variable is present.
    /// - Throws: `GraphQLOperationError/missingVariable(_:operation:)`.
    public func validate(variables: [String: JSONValue]) throws(GraphQLOperationError) {
        for variable in requiredVariables.sorted() where variables[variable] == nil || variables[variable] == .null {
            throw .missingVariable(variable, operation: name ?? kind.rawValue)
        }
    }
}

/// Converts GraphQLSwift's AST into ``QuerySelection``s, inlining named fragments and adding
/// `__typename` to every selection set.
private struct Converter {
    let fragments: [String: FragmentDefinition]
    var expanding: [String] = []

    mutating func convert(_ set: SelectionSet) throws(GraphQLOperationError) -> [QuerySelection] {
        var result: [QuerySelection] = []
        var hasTypename = false
        for selection in set.selections {
            if let field = selection as? Field {
                if field.name.value == "__typename" && field.alias == nil { hasTypename = true }
                var arguments: [String: QueryArgument] = [:]
                for argument in field.arguments { arguments[argument.name.value] = Self.argument(argument.value) }
                let children = try field.selectionSet.map { (set: SelectionSet) throws(GraphQLOperationError) in try convert(set) } ?? []
                result.append(
                    .field(
                        QueryField(
                            name: field.name.value, alias: field.alias?.value, arguments: arguments,
                            selections: children)))
            } else if let inline = selection as? InlineFragment {
                result.append(
                    .fragment(
                        typeCondition: inline.typeCondition?.name.value,
                        selections: try convert(inline.selectionSet)))
            } else if let spread = selection as? FragmentSpread {
                let name = spread.name.value
                guard let fragment = fragments[name], !expanding.contains(name) else { throw .unknownFragment(name) }
                expanding.append(name)
                let inner = try convert(fragment.selectionSet)
                expanding.removeLast()
                result.append(.fragment(typeCondition: fragment.typeCondition.name.value, selections: inner))
            }
        }
        if !hasTypename { result.insert(.field(QueryField(name: "__typename")), at: 0) }
        return result
    }

    static func argument(_ value: any Value) -> QueryArgument {
        switch value {
        case let variable as Variable: .variable(variable.name.value)
        case let int as IntValue: Int(int.value).map { .literal(.int($0)) } ?? .literal(.string(int.value))
        case let float as FloatValue: Double(float.value).map { .literal(.double($0)) } ?? .literal(.string(float.value))
        case let string as StringValue: .literal(.string(string.value))
        case let bool as BooleanValue: .literal(.bool(bool.value))
        case is NullValue: .literal(.null)
        case let enumValue as EnumValue: .enumValue(enumValue.value)
        case let list as ListValue: .list(list.values.map(argument))
        case let object as ObjectValue:
            .object(Dictionary(object.fields.map { ($0.name.value, argument($0.value)) }, uniquingKeysWith: { $1 }))
        default: .literal(.null)
        }
    }
}
