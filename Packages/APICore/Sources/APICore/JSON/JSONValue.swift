/// Any JSON value, for the parts of a response whose shape is open: an error envelope's `details`,
/// a GraphQL object's fields. Integers stay integers (`0` and `1` never become booleans).
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction or exponent that fits an `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; `nil` for a missing member or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    /// The integer, if this is one.
    public var intValue: Int? {
        if case .int(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The Boolean, if this is one (never a number: `0` and `1` are not Booleans).
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` as ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` as ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// `4.2` as ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` as ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[1, "a"]` as ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `["id": "1"]` as ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    /// `nil` as ``null``.
    public init(nilLiteral: ()) { self = .null }
}
