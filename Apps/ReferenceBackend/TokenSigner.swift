import CacheKit
import Crypto
import Foundation

/// Signed, expiring session tokens, checked without a database read: `base64url(JSON payload)`,
/// a dot, `base64url(HMAC-SHA256)`. Logout revokes one token; "expire this session now" revokes every
/// token of a user issued until then. Revocations live in memory (a restart signs with a new key,
/// which revokes everything anyway).
final class TokenSigner: Sendable {
    struct Claims: Codable, Sendable {
        /// The user id.
        var sub: String
        /// Expiry, seconds since 1970.
        var exp: Double
        /// Issue time, seconds since 1970.
        var iat: Double
        /// Token id, for logout.
        var jti: String
    }

    /// The signing key's bytes (`SymmetricKey` is not `Sendable`).
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let revoked = Locked<(tokens: Set<String>, usersBefore: [String: Double])>(([], [:]))

    init(lifetime: TimeInterval, now: @escaping @Sendable () -> Date) {
        keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        self.lifetime = lifetime
        self.now = now
    }

    /// A new token for `userId`.
    func issue(for userId: String) -> (token: String, claims: Claims) {
        let issued = now().timeIntervalSince1970
        let claims = Claims(sub: userId, exp: issued + lifetime, iat: issued, jti: UUID().uuidString)
        let payload = Self.base64URL((try? JSONEncoder().encode(claims)) ?? Data())
        let signature = Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)))
        return (payload + "." + signature, claims)
    }

    /// The claims of a valid, unexpired, unrevoked token; `nil` otherwise.
    func verify(_ token: String) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let signature = Self.data(base64URL: String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(parts[0].utf8), using: key),
            let payload = Self.data(base64URL: String(parts[0])),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload),
            claims.exp > now().timeIntervalSince1970
        else { return nil }
        let isRevoked = revoked.withLock { revoked in
            revoked.tokens.contains(claims.jti) || revoked.usersBefore[claims.sub].map { claims.iat <= $0 } == true
        }
        return isRevoked ? nil : claims
    }

    /// Logout: this token no longer validates.
    func revoke(_ claims: Claims) {
        _ = revoked.withLock { $0.tokens.insert(claims.jti) }
    }

    /// "Expire this session now": every token of the user issued so far stops validating.
    func expireSessions(of userId: String) {
        let instant = now().timeIntervalSince1970
        revoked.withLock { $0.usersBefore[userId] = instant }
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
