import Foundation

/// CRC-32 (IEEE 802.3), to detect a stored value that changed on disk. Slicing-by-8: eight bytes a step
/// through eight tables, over the bytes in place (no iterator), about six times the byte-at-a-time loop.
enum CRC32 {
    /// Table `k` (entries `256 k ..< 256 (k + 1)`) is the CRC of a byte followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[index] = crc
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { checksum(UnsafeRawBufferPointer($0)) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { t in
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let low = crc ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
                let high = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
                crc =
                    t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = t[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
