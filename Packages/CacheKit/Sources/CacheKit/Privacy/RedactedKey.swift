/// A cache key made safe to print.
///
/// Keys can hold personal data (the chat backend's `todays_prediction:{email}:{date}`), so logs and exports
/// print keys only through this type. The key's leading namespace is kept when it is a plain word
/// (letters and `_`) **followed by `:`**, and everything after it is replaced by a keyed hash: the same key
/// gives the same token within one process, so lines can be correlated, but the hash's seed is random per
/// process, so a token cannot be reversed by hashing guessed e-mail addresses. A key with no `:` namespace
/// is hashed whole: `alice.smith@example.com` keeps nothing, not even `alice`.
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
        guard let end = key.firstIndex(of: ":") else {
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
