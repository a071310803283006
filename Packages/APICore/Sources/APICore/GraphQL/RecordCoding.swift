import Foundation

/// The stored form of a record: a format byte (2), then the record's packed bytes (account, write
/// times, fields).
enum RecordCoding {
    struct UnknownFormat: Error, CustomStringConvertible {
        var description: String { "unknown record format" }
    }

    static func encode(_ record: NormalizedRecord) -> Data {
        var data = Data(capacity: record.bytes.count + 1)
        data.append(2)
        data.append(contentsOf: record.bytes)
        return data
    }

    static func decode(_ data: Data) throws -> NormalizedRecord {
        guard data.first == 2 else { throw UnknownFormat() }
        return try NormalizedRecord(packed: [UInt8](data.dropFirst()))
    }
}
