import Crypto
import Foundation
import _CryptoExtras

/// How the backend stores a password: scrypt, memory-hard, with a random 16-byte salt per user, written
/// as `scrypt$<log2 N>$<r>$<p>$<hash, base64>` beside the salt, so the cost can rise later.
///
/// The cost is ``PasswordWork``; each hash records its parameters, so a server raises them without a
/// migration and old hashes still verify.
enum PasswordHash {
    static let blockSize = 8
    static let parallelism = 1

    /// A new salt and the stored hash of `password` under it.
    static func make(_ password: String, work: PasswordWork) throws -> (salt: String, hash: String) {
        let salt = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }).base64EncodedString()
        let hash = try derive(password, salt: salt, logN: work.logN).base64EncodedString()
        return (salt, "scrypt$\(work.logN)$\(blockSize)$\(parallelism)$" + hash)
    }

    /// The work a stored hash was made with; `nil` for a hash in another form.
    static func work(of stored: String) -> PasswordWork? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "scrypt", let logN = Int(parts[1]) else { return nil }
        return PasswordWork(logN: logN)
    }

    /// Whether `password` matches `stored`, compared in constant time. A hash in any other form fails.
    static func verify(_ password: String, salt: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
            Int(parts[2]) == blockSize, Int(parts[3]) == parallelism, let expected = Data(base64Encoded: String(parts[4])),
            let actual = try? derive(password, salt: salt, logN: logN)
        else { return false }
        return constantTimeEqual(actual, expected)
    }

    private static func derive(_ password: String, salt: String, logN: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: Data(salt.utf8), outputByteCount: 32, rounds: 1 << logN, blockSize: blockSize,
            parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }

    private static func constantTimeEqual(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }
}

/// How much work one password check costs: scrypt's N = 2^`logN` (r = 8, p = 1), 128 × 8 × N bytes of memory.
public struct PasswordWork: Sendable, Hashable {
    /// log2 of scrypt's N, from 10 to 20.
    public let logN: Int

    /// Creates a cost; `logN` is clamped to 10...20.
    public init(logN: Int) {
        self.logN = min(20, max(10, logN))
    }

    /// N = 2^15: 32 MiB and tens of milliseconds (in a release build) per guess, for each leaked hash, where
    /// one SHA-256 cost nothing. OWASP's floor for a new production system is 2^17; this is the reference
    /// backend's default, `mib serve` included.
    public static let standard = PasswordWork(logN: 15)
    /// N = 2^10: 1 MiB. For a throwaway backend holding only the documented demo accounts, started
    /// hundreds of times by tests and the demo; never for real accounts.
    public static let light = PasswordWork(logN: 10)
}
