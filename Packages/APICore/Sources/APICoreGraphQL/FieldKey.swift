import APICore
import Foundation

/// The key a field has in a normalized record: its name (never its alias) and its arguments with
/// variables resolved, sorted by name at every depth, so `account(id: "1", kind: A)` and
/// `account(kind: A, id: "1")` are one field. An argument whose variable was not given is left out.
enum FieldKey {
    static func make(_ field: QueryField, variables: [String: JSONValue]) -> String {
        guard !field.arguments.isEmpty else { return field.name }
        let parts = field.arguments.sorted { $0.key < $1.key }.compactMap { name, argument -> String? in
            resolve(argument, variables).map { "\(name):\(canonical($0))" }
        }
        return parts.isEmpty ? field.name : "\(field.name)(\(parts.joined(separator: ",")))"
    }

    /// The argument's value with variables substituted; `nil` for an absent variable.
    static func resolve(_ argument: QueryArgument, _ variables: [String: JSONValue]) -> JSONValue? {
        switch argument {
        case .variable(let name): variables[name]
        case .literal(let value): value
        case .enumValue(let name): .string(name)
        case .list(let items): .array(items.map { resolve($0, variables) ?? .null })
        case .object(let fields): .object(fields.compactMapValues { resolve($0, variables) })
        }
    }

    /// A JSON value as canonical text: object keys sorted at every depth, strings JSON-quoted.
    static func canonical(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): bool ? "true" : "false"
        case .int(let int): String(int)
        case .double(let double): double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
        case .string(let string): quoted(string)
        case .array(let items): "[" + items.map(canonical).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key):\(canonical($0.value))" }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 { text += String(format: "\\u%04x", scalar.value) } else { text.unicodeScalars.append(scalar) }
            }
        }
        return text + "\""
    }
}
