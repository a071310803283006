import Foundation

/// One snapshot's file: a checksum of everything after it, the format's byte, when the snapshot was saved, the id of
/// the user who saved it (its length first) and the value's bytes. The user is read before the value, so another
/// user's snapshot is never decoded, and the value's bytes reach the screen's own reader whole.
struct StoredSnapshot {
    /// The format's byte: `{`, the first byte of the JSON an earlier format held, reads as damaged.
    static let format: UInt8 = 2
    /// The bytes before the user's id: the checksum, the format, the date and the id's length.
    private static let headerSize = 4 + 1 + 8 + 4

    /// The id of the user who saved it, as its UTF-8 bytes: compared byte for byte (`isSaved(by:)`), never as
    /// text, in which two spellings of one character are equal.
    private let userBytes: Data
    /// When it was saved.
    let savedAt: Date
    /// The value, as the screen encoded it.
    let body: Data
    /// The checksum of the file after its first four bytes, which a seal names.
    let checksum: UInt32

    /// The file for `body` saved by `user` at `savedAt`, and its checksum.
    static func file(user: String, savedAt: Date, body: Data) -> (data: Data, checksum: UInt32) {
        var rest = Data([format])
        rest.appendLittleEndian(savedAt.timeIntervalSinceReferenceDate.bitPattern)
        rest.appendLittleEndian(UInt32(truncatingIfNeeded: user.utf8.count))
        rest.append(contentsOf: user.utf8)
        rest.append(body)
        let checksum = CRC32.checksum(rest)
        var data = Data()
        data.appendLittleEndian(checksum)
        data.append(rest)
        return (data, checksum)
    }

    /// The snapshot in `data`.
    /// - Throws: `CocoaError(.fileReadCorruptFile)` when the file is cut short, altered or of another format.
    init(_ data: Data) throws {
        let data = Data(data)
        guard data.count >= Self.headerSize else { throw CocoaError(.fileReadCorruptFile) }
        checksum = data.readLittleEndian(UInt32.self, at: 0)
        guard checksum == CRC32.checksum(data.dropFirst(4)), data[4] == Self.format else { throw CocoaError(.fileReadCorruptFile) }
        savedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: data.readLittleEndian(UInt64.self, at: 5)))
        guard let length = Int(exactly: data.readLittleEndian(UInt32.self, at: 13)), length <= data.count - Self.headerSize else {
            throw CocoaError(.fileReadCorruptFile)
        }
        userBytes = Data(data[Self.headerSize..<(Self.headerSize + length)])
        body = Data(data[(Self.headerSize + length)...])
    }

    /// Whether `user` saved it: their id's bytes, exactly.
    func isSaved(by user: String) -> Bool { userBytes.elementsEqual(user.utf8) }
}
