import Foundation

// Strings: escapes, surrogate pairs, and UTF-8 validated byte by byte.
extension JSONParser {
    /// A string, whose bytes must be well-formed UTF-8: invalid bytes are an error at their offset,
    /// never silently replaced.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        var isASCII = true
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !isASCII { try validateUTF8(start..<index) }
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in a string") }
            isASCII = isASCII && byte < 0x80
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Escapes are ASCII and never fall inside a multi-byte sequence of valid UTF-8, so
                // checking the raw bytes checks the decoded ones.
                if !isASCII { try validateUTF8(start..<index) }
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    throw fail("invalid escape")
                }
            default:
                if byte < 0x20 { throw fail("control character in a string") }
                isASCII = isASCII && byte < 0x80
                scalars.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    /// Throws at the first byte in `range` that does not start a well-formed UTF-8 sequence
    /// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    func validateUTF8(_ range: Range<Int>) throws(JSONParseError) {
        var position = range.lowerBound
        while position < range.upperBound {
            let lead = bytes[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            var length = 0
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                second = 0x80...0x9F
            case 0xF0:
                length = 4
                second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                second = 0x80...0x8F
            default: break
            }
            guard length > 0, position + length <= range.upperBound, second.contains(bytes[position + 1]),
                (2..<length).allSatisfy({ (0x80...0xBF).contains(bytes[position + $0]) })
            else {
                throw JSONParseError(reason: "invalid UTF-8 in a string", offset: position)
            }
            position += length
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
