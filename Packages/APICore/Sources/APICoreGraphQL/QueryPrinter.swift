import APICore

/// Prints selections back to GraphQL text (the document sent to the server).
enum QueryPrinter {
    static func print(_ selections: [QuerySelection]) -> String {
        "{ " + selections.map(print).joined(separator: " ") + " }"
    }

    private static func print(_ selection: QuerySelection) -> String {
        switch selection {
        case .field(let field):
            var text = field.alias.map { "\($0): " } ?? ""
            text += field.name
            if !field.arguments.isEmpty {
                text +=
                    "("
                    + field.arguments.sorted { $0.key < $1.key }.map { "\($0.key): \(print($0.value))" }
                    .joined(separator: ", ") + ")"
            }
            if !field.selections.isEmpty { text += " " + print(field.selections) }
            return text
        case .fragment(let condition, let selections):
            return "..." + (condition.map { " on \($0)" } ?? "") + " " + print(selections)
        }
    }

    static func print(_ argument: QueryArgument) -> String {
        switch argument {
        case .variable(let name): "$\(name)"
        case .literal(let value): FieldKey.canonical(value)
        case .enumValue(let name): name
        case .list(let items): "[" + items.map(print).joined(separator: ", ") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \(print($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}
