import Foundation

/// JSON bytes read in one pass straight into a type's own members, with no ``JSONValue`` in between: for a reader
/// written by hand of a body read at every launch, where building the value's dictionaries cost more than the
/// parse. As strict as ``JSONValue/parse(_:refusingDuplicateKeys:)`` (RFC 8259, nesting at most 512 deep, the
/// whole input one value).
///
/// A member of another type than the one asked for throws, as a malformed body does: the caller leaves such a body
/// to `JSONDecoder`. A reader that must read as `Decodable` does refuses a member it reads twice in one object
/// (``JSONReader/Members/take(_:)``).
///
/// ```swift
/// struct Tagged { var id = ""; var tier: String? }
/// func tagged(_ body: Data) throws(JSONParseError) -> Tagged {
///     try JSONReader.read(body) { (reader: inout JSONReader) throws(JSONParseError) in
///         var tagged = Tagged()
///         var members = JSONReader.Members()
///         try reader.beginObject()
///         while let key = try reader.nextKey() {
///             switch key {
///             case "id": try members.take(0); tagged.id = try reader.string()
///             case "tier": try members.take(1); tagged.tier = try reader.optionalString()
///             default: try reader.skipValue()
///             }
///         }
///         try members.require(0)
///         return tagged
///     }
/// }
/// ```
public struct JSONReader {
    private var parser: JSONParser
    /// Whether the container just begun has had no element or member yet.
    private var atFirst = false

    private init(_ parser: JSONParser) { self.parser = parser }

    /// Reads `data` with `body`, which must read exactly one value; only whitespace may follow it.
    /// - Throws: ``JSONParseError`` for malformed bytes, a member of another type, or bytes after the value.
    public static func read<T>(
        _ data: Data, _ body: (inout JSONReader) throws(JSONParseError) -> T
    ) throws(JSONParseError) -> T {
        let result: Result<T, JSONParseError> = data.withUnsafeBytes { raw in
            var reader = JSONReader(JSONParser(bytes: raw.bindMemory(to: UInt8.self)))
            return Result { () throws(JSONParseError) -> T in
                let bytes = reader.parser.bytes
                if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.parser.index = 3 }
                let value = try body(&reader)
                reader.parser.skipWhitespace()
                guard reader.parser.index == bytes.count else { throw reader.parser.fail("unexpected bytes after the value") }
                return value
            }
        }
        return try result.get()
    }

    // MARK: Containers

    /// Reads `{`; then ``nextKey()`` until it returns `nil`.
    public mutating func beginObject() throws(JSONParseError) {
        try begin(UInt8(ascii: "{"), "expected an object")
    }

    /// The next member's key, with its `:` read (read its value next), or `nil` once the object's `}` is read.
    public mutating func nextKey() throws(JSONParseError) -> String? {
        guard try next(closing: UInt8(ascii: "}")) else { return nil }
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
            throw parser.fail("expected a key")
        }
        let key = try parser.parseString()
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else { throw parser.fail("expected ':'") }
        parser.index += 1
        return key
    }

    /// Reads `[`; then ``nextElement()`` before each element until it returns `false`.
    public mutating func beginArray() throws(JSONParseError) {
        try begin(UInt8(ascii: "["), "expected an array")
    }

    /// Whether another element follows (read it next), `false` once the array's `]` is read.
    public mutating func nextElement() throws(JSONParseError) -> Bool {
        try next(closing: UInt8(ascii: "]"))
    }

    // MARK: Values

    /// A string.
    public mutating func string() throws(JSONParseError) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw parser.fail("expected a string") }
        return try parser.parseString()
    }

    /// A string, or `nil` for `null`.
    public mutating func optionalString() throws(JSONParseError) -> String? {
        try readsNull() ? nil : string()
    }

    /// An integer that fits an `Int` (`2.0` and `2e0` are not).
    public mutating func int() throws(JSONParseError) -> Int {
        let byte = try peek()
        guard byte == UInt8(ascii: "-") || JSONParser.isDigit(byte), case .int(let int) = try parser.parseNumber()
        else { throw parser.fail("expected an integer") }
        return int
    }

    /// An integer, or `nil` for `null`.
    public mutating func optionalInt() throws(JSONParseError) -> Int? {
        try readsNull() ? nil : int()
    }

    /// `true` or `false`.
    public mutating func bool() throws(JSONParseError) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try parser.expect("true")
            return true
        case UInt8(ascii: "f"):
            try parser.expect("false")
            return false
        default: throw parser.fail("expected true or false")
        }
    }

    /// A Boolean, or `nil` for `null`.
    public mutating func optionalBool() throws(JSONParseError) -> Bool? {
        try readsNull() ? nil : bool()
    }

    /// Reads `null` if it comes next; `false`, reading nothing, for any other value.
    public mutating func readsNull() throws(JSONParseError) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try parser.expect("null")
        return true
    }

    /// Reads the next value, whatever it is, and drops it (a member the reader does not take).
    public mutating func skipValue() throws(JSONParseError) {
        _ = try parser.parseValue()
    }

    /// The members of one object a reader has taken, by their place in its list of known members (0 to 63): a member
    /// taken twice (a key the object holds twice) is refused, as a reader that must read as `Decodable` needs.
    public struct Members {
        private var taken: UInt64 = 0

        /// No member taken yet.
        public init() {}

        /// Takes member `place`.
        /// - Throws: ``JSONParseError`` when it was taken already.
        public mutating func take(_ place: Int) throws(JSONParseError) {
            let bit = UInt64(1) << UInt64(place)
            guard taken & bit == 0 else { throw JSONParseError(reason: "a member twice in one object", offset: 0) }
            taken |= bit
        }

        /// Whether member `place` was taken.
        public func has(_ place: Int) -> Bool { taken & (UInt64(1) << UInt64(place)) != 0 }

        /// Requires member `place`.
        /// - Throws: ``JSONParseError`` when it was not taken.
        public func require(_ place: Int) throws(JSONParseError) {
            guard has(place) else { throw JSONParseError(reason: "a required member is missing", offset: 0) }
        }
    }

    // MARK: Steps

    private mutating func peek() throws(JSONParseError) -> UInt8 {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw parser.fail("unexpected end of input") }
        return parser.bytes[parser.index]
    }

    private mutating func begin(_ opening: UInt8, _ expected: String) throws(JSONParseError) {
        guard try peek() == opening else { throw parser.fail(expected) }
        try parser.enter()
        parser.index += 1
        atFirst = true
    }

    /// Reads the `,` before the next element or member, or the container's closing byte (`false`).
    private mutating func next(closing: UInt8) throws(JSONParseError) -> Bool {
        let byte = try peek()
        if byte == closing {
            parser.index += 1
            parser.depth -= 1
            atFirst = false
            return false
        }
        if atFirst {
            atFirst = false
        } else {
            guard byte == UInt8(ascii: ",") else { throw parser.fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
            parser.index += 1
            _ = try peek()
        }
        return true
    }
}
