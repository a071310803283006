import Foundation

/// Why packed record bytes could not be read.
public struct RecordPackingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public var reason: String
    /// The byte offset.
    public var offset: Int

    /// "packed record malformed at byte 3: …".
    public var description: String { "packed record malformed at byte \(offset): \(reason)" }
}

/// Tags of packed values.
private enum Tag: UInt8 {
    case null = 0, `false`, `true`, int, double, string, array, object, reference, list
}

/// Appends packed fields: `varint keyLength, key, 8-byte write time, value`, where a value is a
/// tag byte and its payload (zigzag varint, 8-byte double, varint-length UTF-8, or a counted
/// sequence of values).
struct RecordPacker {
    private(set) var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    /// The bytes in a buffer of exactly their size: a record lives long, and growth by doubling
    /// would leave up to half of each buffer unused.
    var packed: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
    }

    mutating func append(_ key: String, _ value: RecordValue, writtenAt: Date) {
        appendString(key)
        var bits = writtenAt.timeIntervalSince1970.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
        append(value)
    }

    mutating func appendRaw(_ source: [UInt8], _ range: Range<Int>) {
        bytes.append(contentsOf: source[range])
    }

    private mutating func append(_ value: RecordValue) {
        switch value {
        case .value(let json): append(json)
        case .reference(let key):
            bytes.append(Tag.reference.rawValue)
            appendString(key)
        case .list(let items):
            bytes.append(Tag.list.rawValue)
            appendVarint(UInt64(items.count))
            for item in items { append(item) }
        }
    }

    private mutating func append(_ json: JSONValue) {
        switch json {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let bool): bytes.append(bool ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let int):
            bytes.append(Tag.int.rawValue)
            appendVarint(UInt64(bitPattern: Int64((int << 1) ^ (int >> (Int.bitWidth - 1)))))
        case .double(let double):
            bytes.append(Tag.double.rawValue)
            var bits = double.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
        case .string(let string):
            bytes.append(Tag.string.rawValue)
            appendString(string)
        case .array(let items):
            bytes.append(Tag.array.rawValue)
            appendVarint(UInt64(items.count))
            for item in items { append(item) }
        case .object(let object):
            bytes.append(Tag.object.rawValue)
            appendVarint(UInt64(object.count))
            for (key, item) in object {
                appendString(key)
                append(item)
            }
        }
    }

    private mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

/// Reads packed fields in order, checking every length against the buffer.
struct RecordUnpacker {
    /// An entry's key and where its bytes and its value's bytes lie.
    struct RawEntry {
        var key: String
        var range: Range<Int>
        var valueRange: Range<Int>
    }

    let bytes: [UInt8]
    private(set) var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func nextEntry() throws(RecordPackingError) -> (key: String, value: RecordValue, writtenAt: Date) {
        let key = try string()
        let date = try date()
        return (key, try recordValue(), date)
    }

    mutating func nextRawEntry() throws(RecordPackingError) -> RawEntry {
        let start = offset
        let key = try string()
        guard offset + 8 <= bytes.count else { throw fail("truncated") }
        offset += 8
        let valueStart = offset
        try skipValue()
        guard offset <= bytes.count else { throw fail("truncated") }
        return RawEntry(key: key, range: start..<offset, valueRange: valueStart..<offset)
    }

    /// The entry's value and write time when its key is `wanted`; otherwise skips it and returns `nil`.
    mutating func entry(ifKeyIs wanted: UnsafeBufferPointer<UInt8>) throws(RecordPackingError)
        -> (value: RecordValue, writtenAt: Date)?
    {
        let raw = try varint()
        guard raw <= UInt64(bytes.count - offset) else { throw fail("truncated key") }
        let length = Int(raw)
        let start = offset
        let matches = length == wanted.count && bytes.withUnsafeBufferPointer { all in
            UnsafeBufferPointer(rebasing: all[start..<start + length]).elementsEqual(wanted)
        }
        offset += length
        if matches {
            let date = try date()
            return (try recordValue(), date)
        }
        guard offset + 8 <= bytes.count else { throw fail("truncated") }
        offset += 8
        try skipValue()
        return nil
    }

    private func fail(_ reason: String) -> RecordPackingError {
        RecordPackingError(reason: reason, offset: offset)
    }

    private mutating func varint() throws(RecordPackingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw fail("truncated number") }
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    private mutating func string() throws(RecordPackingError) -> String {
        let raw = try varint()
        guard raw <= UInt64(bytes.count - offset) else { throw fail("truncated string") }
        let length = Int(raw)
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }

    private mutating func bits64() throws(RecordPackingError) -> UInt64 {
        guard offset + 8 <= bytes.count else { throw fail("truncated") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return value
    }

    private mutating func date() throws(RecordPackingError) -> Date {
        Date(timeIntervalSince1970: Double(bitPattern: try bits64()))
    }

    private mutating func tag() throws(RecordPackingError) -> Tag {
        guard offset < bytes.count, let tag = Tag(rawValue: bytes[offset]) else { throw fail("unknown value tag") }
        offset += 1
        return tag
    }

    private mutating func recordValue() throws(RecordPackingError) -> RecordValue {
        let start = offset
        switch try tag() {
        case .reference: return .reference(try string())
        case .list:
            let raw = try varint()
            guard raw <= UInt64(bytes.count - offset) else { throw fail("list longer than the record") }
            let count = Int(raw)
            var items: [RecordValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try recordValue()) }
            return .list(items)
        default:
            offset = start
            return .value(try json())
        }
    }

    private mutating func json() throws(RecordPackingError) -> JSONValue {
        switch try tag() {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int:
            let zigzag = try varint()
            return .int(Int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
        case .double: return .double(Double(bitPattern: try bits64()))
        case .string: return .string(try string())
        case .array:
            let raw = try varint()
            guard raw <= UInt64(bytes.count - offset) else { throw fail("array longer than the record") }
            let count = Int(raw)
            var items: [JSONValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try json()) }
            return .array(items)
        case .object:
            let raw = try varint()
            guard raw <= UInt64(bytes.count - offset) else { throw fail("object longer than the record") }
            let count = Int(raw)
            var object: [String: JSONValue] = [:]
            for _ in 0..<count {
                let key = try string()
                object[key] = try json()
            }
            return .object(object)
        case .reference, .list:
            throw fail("a reference inside a JSON value")
        }
    }

    /// Moves past one value without building it.
    private mutating func skipValue() throws(RecordPackingError) {
        switch try tag() {
        case .null, .false, .true: return
        case .int: _ = try varint()
        case .double:
            guard offset + 8 <= bytes.count else { throw fail("truncated") }
            offset += 8
        case .string, .reference: try skipString()
        case .array, .list:
            let count = try varint()
            guard count <= UInt64(bytes.count - offset) else { throw fail("list longer than the record") }
            for _ in 0..<count { try skipValue() }
        case .object:
            let count = try varint()
            guard count <= UInt64(bytes.count - offset) else { throw fail("object longer than the record") }
            for _ in 0..<count {
                try skipString()
                try skipValue()
            }
        }
    }

    private mutating func skipString() throws(RecordPackingError) {
        let length = try varint()
        guard length <= UInt64(bytes.count - offset) else { throw fail("truncated string") }
        offset += Int(length)
    }
}
