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

/// Builds a packed record:
///
/// ```
/// record  := account times entry*
/// account := varint 0 (none) | varint (length + 1), UTF-8 bytes
/// times   := varint count, 8-byte seconds since 1970 each (the distinct write times, usually one)
/// entry   := varint keyLength, key, varint index into times, value
/// value   := tag byte, payload (zigzag varint, 8-byte double, varint-length UTF-8, or a counted
///            sequence of values)
/// ```
/// Entries must be appended in increasing key order.
struct RecordPacker {
    private let accountId: String?
    private var times: [Date] = []
    private var entries: [UInt8] = []

    init(accountId: String?) {
        self.accountId = accountId
    }

    mutating func append(_ key: String, _ value: RecordValue, writtenAt: Date) {
        appendKey(key, writtenAt)
        Self.append(value, into: &entries)
    }

    /// Appends an entry whose value is already packed (copied from another record).
    mutating func appendRaw(_ key: String, writtenAt: Date, value source: [UInt8], _ range: Range<Int>) {
        appendKey(key, writtenAt)
        entries.append(contentsOf: source[range])
    }

    /// The record, in a buffer of exactly its size: records live long, and growth by doubling
    /// would leave up to half of each buffer unused.
    var packed: [UInt8] {
        var header: [UInt8] = []
        if let accountId {
            let utf8 = Array(accountId.utf8)
            Self.appendVarint(UInt64(utf8.count + 1), into: &header)
            header.append(contentsOf: utf8)
        } else {
            header.append(0)
        }
        Self.appendVarint(UInt64(times.count), into: &header)
        for time in times {
            var bits = time.timeIntervalSince1970.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { header.append(contentsOf: $0) }
        }
        return [UInt8](unsafeUninitializedCapacity: header.count + entries.count) { buffer, count in
            let afterHeader = buffer.initialize(fromContentsOf: header)
            count = afterHeader + UnsafeMutableBufferPointer(rebasing: buffer[afterHeader...]).initialize(fromContentsOf: entries)
        }
    }

    private mutating func appendKey(_ key: String, _ writtenAt: Date) {
        Self.appendString(key, into: &entries)
        let index = times.firstIndex(of: writtenAt) ?? {
            times.append(writtenAt)
            return times.count - 1
        }()
        Self.appendVarint(UInt64(index), into: &entries)
    }

    private static func append(_ value: RecordValue, into bytes: inout [UInt8]) {
        switch value {
        case .value(let json): append(json, into: &bytes)
        case .reference(let key):
            bytes.append(Tag.reference.rawValue)
            appendString(key, into: &bytes)
        case .list(let items):
            bytes.append(Tag.list.rawValue)
            appendVarint(UInt64(items.count), into: &bytes)
            for item in items { append(item, into: &bytes) }
        }
    }

    private static func append(_ json: JSONValue, into bytes: inout [UInt8]) {
        switch json {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let bool): bytes.append(bool ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let int):
            bytes.append(Tag.int.rawValue)
            appendVarint(UInt64(bitPattern: Int64((int << 1) ^ (int >> (Int.bitWidth - 1)))), into: &bytes)
        case .double(let double):
            bytes.append(Tag.double.rawValue)
            var bits = double.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
        case .string(let string):
            bytes.append(Tag.string.rawValue)
            appendString(string, into: &bytes)
        case .array(let items):
            bytes.append(Tag.array.rawValue)
            appendVarint(UInt64(items.count), into: &bytes)
            for item in items { append(item, into: &bytes) }
        case .object(let object):
            bytes.append(Tag.object.rawValue)
            appendVarint(UInt64(object.count), into: &bytes)
            for (key, item) in object {
                appendString(key, into: &bytes)
                append(item, into: &bytes)
            }
        }
    }

    private static func appendString(_ string: String, into bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), into: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    private static func appendVarint(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

/// Reads a packed record's entries in order, checking every length against the buffer.
struct RecordUnpacker {
    /// An entry's key, write time, and where its value's bytes lie.
    struct RawEntry {
        var key: String
        var writtenAt: Date
        var valueRange: Range<Int>
    }

    let bytes: [UInt8]
    private(set) var offset = 0
    /// Where the account's UTF-8 bytes lie, if the record has one.
    private(set) var accountRange: Range<Int>?
    private var timesStart = 0
    private var timeCount = 0

    /// Reads the header (account and write times); the entries follow.
    init(bytes: [UInt8]) throws(RecordPackingError) {
        self.bytes = bytes
        let accountLength = try varint()
        if accountLength > 0 {
            guard accountLength - 1 <= UInt64(bytes.count - offset) else { throw fail("truncated account") }
            accountRange = offset..<offset + Int(accountLength - 1)
            offset += Int(accountLength - 1)
        }
        let count = try varint()
        guard count <= UInt64(bytes.count - offset) / 8 else { throw fail("truncated write times") }
        timeCount = Int(count)
        timesStart = offset
        offset += timeCount * 8
    }

    var isAtEnd: Bool { offset >= bytes.count }

    /// The owning account, decoded.
    var accountId: String? {
        accountRange.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    mutating func nextEntry() throws(RecordPackingError) -> (key: String, value: RecordValue, writtenAt: Date) {
        let key = try string()
        let date = try time()
        return (key, try recordValue(), date)
    }

    mutating func nextRawEntry() throws(RecordPackingError) -> RawEntry {
        let key = try string()
        let date = try time()
        let valueStart = offset
        try skipValue()
        return RawEntry(key: key, writtenAt: date, valueRange: valueStart..<offset)
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
            let date = try time()
            return (try recordValue(), date)
        }
        _ = try varint()
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

    private mutating func skipString() throws(RecordPackingError) {
        let length = try varint()
        guard length <= UInt64(bytes.count - offset) else { throw fail("truncated string") }
        offset += Int(length)
    }

    private func bits64(at position: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        return value
    }

    private mutating func time() throws(RecordPackingError) -> Date {
        let index = try varint()
        guard index < UInt64(timeCount) else { throw fail("write time out of range") }
        return Date(timeIntervalSince1970: Double(bitPattern: bits64(at: timesStart + Int(index) * 8)))
    }

    private mutating func tag() throws(RecordPackingError) -> Tag {
        guard offset < bytes.count, let tag = Tag(rawValue: bytes[offset]) else { throw fail("unknown value tag") }
        offset += 1
        return tag
    }

    private mutating func count() throws(RecordPackingError) -> Int {
        let raw = try varint()
        guard raw <= UInt64(bytes.count - offset) else { throw fail("more items than bytes") }
        return Int(raw)
    }

    private mutating func recordValue() throws(RecordPackingError) -> RecordValue {
        let start = offset
        switch try tag() {
        case .reference: return .reference(try string())
        case .list:
            let count = try count()
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
        case .double:
            guard offset + 8 <= bytes.count else { throw fail("truncated") }
            defer { offset += 8 }
            return .double(Double(bitPattern: bits64(at: offset)))
        case .string: return .string(try string())
        case .array:
            let count = try count()
            var items: [JSONValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try json()) }
            return .array(items)
        case .object:
            let count = try count()
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
            for _ in 0..<(try count()) { try skipValue() }
        case .object:
            for _ in 0..<(try count()) {
                try skipString()
                try skipValue()
            }
        }
    }
}
