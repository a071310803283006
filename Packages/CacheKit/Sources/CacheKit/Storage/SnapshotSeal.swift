import Foundation

/// What vouches for a snapshot as current: its file's checksum (`StoredSnapshot.checksum`) and the end of its freshness. The seals file
/// holds one a screen, each as its name's length (one byte), its name, the checksum and the end, then a checksum
/// of all of it.
struct SnapshotSeal {
    var checksum: UInt32
    var until: Date

    static func encode(_ seals: [String: SnapshotSeal]) -> Data {
        var data = Data()
        for (screen, seal) in seals.sorted(by: { $0.key < $1.key }) {
            data.appendLittleEndian(UInt8(screen.utf8.count))
            data.append(contentsOf: screen.utf8)
            data.appendLittleEndian(seal.checksum)
            data.appendLittleEndian(seal.until.timeIntervalSinceReferenceDate.bitPattern)
        }
        data.appendLittleEndian(CRC32.checksum(data))
        return data
    }

    /// The seals in `data`, or `nil` when it is cut short, altered or of another shape.
    static func decode(_ data: Data) -> [String: SnapshotSeal]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 4, CRC32.checksum(data.dropLast(4)) == data.readLittleEndian(UInt32.self, at: bytes.count - 4) else {
            return nil
        }
        var seals: [String: SnapshotSeal] = [:]
        var offset = 0
        while offset < bytes.count - 4 {
            let length = Int(bytes[offset])
            guard offset + 1 + length + 12 <= bytes.count - 4 else { return nil }
            let screen = String(decoding: bytes[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
            offset += 1 + length
            let until = Date(timeIntervalSinceReferenceDate: Double(bitPattern: data.readLittleEndian(UInt64.self, at: offset + 4)))
            seals[screen] = SnapshotSeal(checksum: data.readLittleEndian(UInt32.self, at: offset), until: until)
            offset += 12
        }
        return seals
    }
}
