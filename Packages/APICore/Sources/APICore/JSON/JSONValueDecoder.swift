import Foundation

/// Decodes a `Decodable` type straight from a ``JSONValue`` tree, with no JSON text in between: what
/// `GraphQLResult/decode(_:)` uses, so a typed read from the normalized cache never serializes the tree
/// and parses it again.
///
/// It follows `JSONDecoder`'s default strategies, so a type decodes the same either way: numbers convert
/// between `Int` and `Double` only when exact (an integer written with a fraction or an exponent, or a literal
/// beyond `Int`'s range, which the parser keeps as a `Double`, only below 2^53, where a `Double` holds it exactly;
/// above, it is refused, where `JSONDecoder` would read its text), `Date` is seconds since 2001 (`deferredToDate`), `Data` is
/// base64 text, `Decimal` is a number, a missing key is `keyNotFound` and a wrong kind is `typeMismatch`,
/// each with its coding path.
///
/// ```swift
/// let account = try JSONValueDecoder().decode(Account.self, from: answer["account"] ?? .null)
/// ```
public struct JSONValueDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes `type` from `value`.
    /// - Throws: `DecodingError`, with the coding path of the value that did not fit.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, parentPath: [], key: nil).unbox(T.self)
    }
}

/// One position in the tree being decoded. Its coding path is built only when asked for (a nested
/// container or an error), so a scalar member costs no allocation.
package struct ValueDecoder: Decoder {
    let value: JSONValue
    let parentPath: [any CodingKey]
    let key: (any CodingKey)?

    package init(value: JSONValue, parentPath: [any CodingKey], key: (any CodingKey)?) {
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        if value == .null {
            return .valueNotFound(expected, .init(codingPath: codingPath, debugDescription: "Expected \(expected) but found null."))
        }
        let found =
            switch value {
            case .null, .bool: "a boolean"
            case .int, .double: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        return .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "Expected \(expected) but found \(found)."))
    }

    func unboxInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let int): if let exact = T(exactly: int) { return exact }
        // From 2^53 up a `Double` may already be rounded (`9007199254740993.0` parses as …992), where `JSONDecoder`
        // reads the number's text exactly: such an integer is refused rather than read otherwise.
        case .double(let double) where double.magnitude < 0x1p53: if let exact = T(exactly: double) { return exact }
        default: break
        }
        throw mismatch(T.self)
    }

    func unboxFloat<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let int): return T(int)
        case .double(let double): return T(double)
        default: throw mismatch(T.self)
        }
    }

    package func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        // The types JSONDecoder treats specially, by its default strategies.
        if T.self == Data.self {
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch(Data.self) }
            return try cast(data)
        }
        if T.self == Decimal.self {
            switch value {
            case .int(let int): return try cast(Decimal(int))
            case .double(let double): return try cast(Decimal(string: String(double)) ?? Decimal(double))
            default: throw mismatch(Decimal.self)
            }
        }
        return try T(from: self)
    }

    private func cast<T, U>(_ value: U) throws -> T {
        guard let value = value as? T else { throw mismatch(T.self) }
        return value
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    package func decodeNil() -> Bool { value == .null }

    package func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self) }
        return bool
    }

    package func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self) }
        return string
    }

    package func decode(_ type: Double.Type) throws -> Double { try unboxFloat(Double.self) }
    package func decode(_ type: Float.Type) throws -> Float { try unboxFloat(Float.self) }
    package func decode(_ type: Int.Type) throws -> Int { try unboxInteger(Int.self) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(Int8.self) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(Int16.self) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(Int32.self) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(Int64.self) }
    package func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(UInt.self) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(UInt8.self) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(UInt16.self) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(UInt32.self) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(UInt64.self) }
    package func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(T.self) }
}

/// A JSON object's members, by coding key.
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func member(_ key: Key) throws -> ValueDecoder {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return ValueDecoder(value: value, parentPath: codingPath, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decode(Bool.self) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decode(String.self) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decode(Double.self) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decode(Int.self) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).unbox(T.self) }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = object[key.stringValue], value != .null else { return nil }
        return try ValueDecoder(value: value, parentPath: codingPath, key: key).decode(String.self)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = object[key.stringValue], value != .null else { return nil }
        return try ValueDecoder(value: value, parentPath: codingPath, key: key).unbox(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: object["super"] ?? .null, parentPath: codingPath, key: JSONIndexKey(stringValue: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, parentPath: codingPath, key: key)
    }
}

/// A JSON array's elements, in order.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next(_ expected: Any.Type) throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                expected,
                .init(codingPath: codingPath + [JSONIndexKey(intValue: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], parentPath: codingPath, key: JSONIndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: String.Type) throws -> String { try next(String.self).decode(String.self) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(Int.self).decode(Int.self) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(Double.self).decode(Double.self) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(Bool.self).decode(Bool.self) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(T.self).unbox(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: JSONValue].self).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}

/// A coding-path element for an array index or `super`.
package struct JSONIndexKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
