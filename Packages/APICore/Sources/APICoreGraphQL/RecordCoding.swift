import APICore
import Foundation

/// The stored form of a record: a format byte (2), then the record's packed bytes (account, write
/// times, fields).
enum RecordCoding {
    struct UnknownFormat: Error, CustomStringConvertible {
        var description: String { "unknown record format" }
    }

    static func encode(_ record: NormalizedRecord) -> Data {
        var data = Data(count: record.bytes.count + 1)
        data.withUnsafeMutableBytes { target in
            target[0] = 2
            record.bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: target[1...]).copyMemory(from: $0) }
        }
        return data
    }

    static func decode(_ data: Data) throws -> NormalizedRecord {
        guard data.first == 2 else { throw UnknownFormat() }
        return try NormalizedRecord(packed: [UInt8](data.dropFirst()))
    }
}
