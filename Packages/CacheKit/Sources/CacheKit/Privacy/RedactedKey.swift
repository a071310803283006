/// A cache key made safe to print.
///
/// Keys can hold personal data (the chat backend's `todays_prediction:{email}:{date}`), so logs and exports
/// print keys only through this type. The key's leading namespace is kept when it is a plain word
/// (letters and `_`), and everything after it is replaced by a keyed hash: the same key gives the same
/// token within one process, so lines can be correlated, but the hash's seed is random per process,
/// so a token cannot be reversed by hashing guessed e-mail addresses.
///
/// `todays_prediction:alice@example.com:2026-11-21` prints as `todays_prediction:#3f9a0c41d2e7`.
public struct RedactedKey: Sendable, Hashable, CustomStringConvertible {
    /// The printable form.
    public let description: String

    /// Redacts `key`.
    public init(_ key: String) {
        description = Self.redact(key)
    }

    static func redact(_ key: String) -> String {
        var hasher = Hasher()
        hasher.combine(key)
        let token = "#" + String(UInt64(bitPattern: Int64(hasher.finalize())) & 0xFFFF_FFFF_FFFF, radix: 16)
        let separators: Set<Character> = [":", "/", "?", "."]
        guard let end = key.firstIndex(where: { separators.contains($0) }) else {
            return token
        }
        let namespace = key[..<end]
        let isPlainWord = !namespace.isEmpty && namespace.allSatisfy { ($0.isLetter && $0.isASCII) || $0 == "_" }
        return isPlainWord ? "\(namespace)\(key[end])\(token)" : token
    }
}

extension String {
    /// This key, redacted for printing.
    var redacted: RedactedKey { RedactedKey(self) }
}
