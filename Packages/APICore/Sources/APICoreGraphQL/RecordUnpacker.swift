import APICore
import Foundation

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

    /// Where the next entry's key and value lie, without decoding either (its write time index is checked).
    mutating func nextEntryRanges() throws(RecordPackingError) -> (key: Range<Int>, value: Range<Int>) {
        let raw = try varint()
        guard raw <= UInt64(bytes.count - offset) else { throw fail("truncated string") }
        let key = offset..<offset + Int(raw)
        offset += Int(raw)
        guard try varint() < UInt64(timeCount) else { throw fail("write time out of range") }
        let valueStart = offset
        try skipValue()
        return (key, valueStart..<offset)
    }

    /// The entry's value and write time when its key is `wanted`; otherwise skips it and returns `nil`.
    mutating func entry(ifKeyIs wanted: UnsafeBufferPointer<UInt8>) throws(RecordPackingError)
        -> (value: RecordValue, writtenAt: Date)?
    {
        let raw = try varint()
        guard raw <= UInt64(bytes.count - offset) else { throw fail("truncated key") }
        let length = Int(raw)
        let start = offset
        let matches =
            length == wanted.count
            && bytes.withUnsafeBufferPointer { all in
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

    private mutating func tag() throws(RecordPackingError) -> RecordTag {
        guard offset < bytes.count, let tag = RecordTag(rawValue: bytes[offset]) else { throw fail("unknown value tag") }
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
