import Foundation

/// What vouches for a snapshot as current: its file's checksum (`StoredSnapshot.checksum`) and the end of its freshness. The seals file
/// holds one a screen, each as its name's length (one byte), its name, the checksum and the end, then a checksum
/// of all of it.
struct SnapshotSeal {
    var checksum: UInt32
    var until: Date

    static func encode(_ seals: [String: SnapshotSeal]) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        for (screen, seal) in seals.sorted(by: { $0.key < $1.key }) {
            append(UInt8(screen.utf8.count))
            data.append(contentsOf: screen.utf8)
            append(seal.checksum)
            append(seal.until.timeIntervalSinceReferenceDate.bitPattern)
        }
        append(CRC32.checksum(data))
        return data
    }

    /// The seals in `data`, or `nil` when it is cut short, altered or of another shape.
    static func decode(_ data: Data) -> [String: SnapshotSeal]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 4, CRC32.checksum(data.dropLast(4)) == read(UInt32.self, bytes, at: bytes.count - 4) else { return nil }
        var seals: [String: SnapshotSeal] = [:]
        var offset = 0
        while offset < bytes.count - 4 {
            let length = Int(bytes[offset])
            guard offset + 1 + length + 12 <= bytes.count - 4 else { return nil }
            let screen = String(decoding: bytes[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
            offset += 1 + length
            let until = Date(timeIntervalSinceReferenceDate: Double(bitPattern: read(UInt64.self, bytes, at: offset + 4)))
            seals[screen] = SnapshotSeal(checksum: read(UInt32.self, bytes, at: offset), until: until)
            offset += 12
        }
        return seals
    }

    private static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        bytes[offset..<(offset + MemoryLayout<T>.size)].withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
    }
}
