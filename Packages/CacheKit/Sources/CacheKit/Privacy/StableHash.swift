import Crypto
import Foundation

/// A hash that is the same in every process and on every device (FNV-1a, 64 bits, in hex), for names
/// built from identifiers that must not appear themselves: a user's file (`queue-<hash>.sqlite`), a cache
/// key built from birth data. Not for secrecy (it is not a cryptographic hash), and not for logs, which
/// use ``RedactedKey`` (salted per process); where two inputs must never be made to collide on purpose, use
/// ``sha256(_:)``.
public enum StableHash {
    /// The SHA-256 of `text`'s UTF-8 bytes, in hex: the same everywhere, and no two inputs share it in
    /// practice (an idempotency key derived from content).
    public static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The hex hash of `text`'s UTF-8 bytes.
    public static func hex(_ text: String) -> String {
        String(value(text), radix: 16)
    }

    /// The hash of `text`'s UTF-8 bytes as a number.
    public static func value(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
