/// A hash that is the same in every process and on every device (FNV-1a, 64 bits, in hex), for names
/// built from identifiers that must not appear themselves: a user's file (`queue-<hash>.sqlite`), a cache
/// key built from birth data. Not for secrecy (it is not a cryptographic hash), and not for logs, which
/// use ``RedactedKey`` (salted per process).
public enum StableHash {
    /// The hex hash of `text`'s UTF-8 bytes.
    public static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
