import Foundation
import Testing

@testable import CacheKit

@Suite(.timeLimit(.minutes(10))) struct CRC32Tests {
    /// The byte-at-a-time definition the sliced version must agree with.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func matchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Data()) == 0)
    }

    @Test func agreesWithTheBitwiseDefinitionAtEveryLengthAndAlignment() {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<8 {
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 292] where start + length <= bytes.count {
                let slice = Array(bytes[start..<start + length])
                #expect(CRC32.checksum(Data(bytes[start..<start + length])) == Self.reference(slice), "start \(start) length \(length)")
            }
        }
    }
}
