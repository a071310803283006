import APICore
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
enum RecordTag: UInt8 {
    case null = 0
    case `false`, `true`, int, double, string, array, object, reference, list
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
        let index =
            times.firstIndex(of: writtenAt)
            ?? {
                times.append(writtenAt)
                return times.count - 1
            }()
        Self.appendVarint(UInt64(index), into: &entries)
    }

    private static func append(_ value: RecordValue, into bytes: inout [UInt8]) {
        switch value {
        case .value(let json): append(json, into: &bytes)
        case .reference(let key):
            bytes.append(RecordTag.reference.rawValue)
            appendString(key, into: &bytes)
        case .list(let items):
            bytes.append(RecordTag.list.rawValue)
            appendVarint(UInt64(items.count), into: &bytes)
            for item in items { append(item, into: &bytes) }
        }
    }

    private static func append(_ json: JSONValue, into bytes: inout [UInt8]) {
        switch json {
        case .null: bytes.append(RecordTag.null.rawValue)
        case .bool(let bool): bytes.append(bool ? RecordTag.true.rawValue : RecordTag.false.rawValue)
        case .int(let int):
            bytes.append(RecordTag.int.rawValue)
            appendVarint(UInt64(bitPattern: Int64((int << 1) ^ (int >> (Int.bitWidth - 1)))), into: &bytes)
        case .double(let double):
            bytes.append(RecordTag.double.rawValue)
            var bits = double.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
        case .string(let string):
            bytes.append(RecordTag.string.rawValue)
            appendString(string, into: &bytes)
        case .array(let items):
            bytes.append(RecordTag.array.rawValue)
            appendVarint(UInt64(items.count), into: &bytes)
            for item in items { append(item, into: &bytes) }
        case .object(let object):
            bytes.append(RecordTag.object.rawValue)
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

extension RecordPackingError: LocalizedError {
    /// A sentence for people: the stored data is reloaded from the server.
    public var errorDescription: String? { "Saved data could not be read. It will be loaded again." }
}
