import Foundation

enum JSONWriter {
    static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let bool): bytes.append(contentsOf: (bool ? "true" : "false").utf8)
        case .int(let int): bytes.append(contentsOf: String(int).utf8)
        case .double(let double): bytes.append(contentsOf: (double.isFinite ? "\(double)" : "null").utf8)
        case .string(let string): write(string, into: &bytes)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            // Keys in order: the same value is the same bytes in every process (a dictionary's order is not),
            // so a key derived from a body (an import's idempotency key) survives a relaunch.
            for (key, item) in object.sorted(by: { $0.key < $1.key }) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(item, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    static func write(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(byte >> 4)], hex[Int(byte & 0x0F)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
