import Foundation

/// Certificate pinning (REQ SEC-1): for each pinned host, the SHA-256 of the SubjectPublicKeyInfo of keys
/// its certificate chain must contain, base64-encoded (`openssl x509 -pubkey | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64`). Each host needs at least two pins: the key in use and a backup
/// key kept offline, so a rotation never locks users out.
///
/// The rule is **fail closed**: a chain with no pinned key is refused during the handshake, before any
/// request byte is sent (``TransportError/pinMismatch(host:)``). A pinned host is trusted by its pins alone:
/// a chain need not lead to a system root, so a private CA or a self-signed key can be pinned.
///
/// A pin set may expire (`expires`). After that date the host is **no longer pinned**: the connection
/// falls back to the platform's ordinary certificate validation (system roots and host name) and a warning
/// is logged, so an app that was not updated still works, with ordinary TLS, rather than failing for
/// every user. Hosts without a pin set get ordinary validation too.
public struct PinningPolicy: Sendable, Hashable {
    /// The pins of one host.
    public struct PinSet: Sendable, Hashable {
        /// The host name (or IP address) as it appears in request URLs, lowercase.
        public var host: String
        /// Base64 SHA-256 hashes of SubjectPublicKeyInfo DER.
        public var pins: Set<String>
        /// After this date the host is no longer pinned; `nil` for never.
        public var expires: Date?

        /// Creates a pin set.
        public init(host: String, pins: Set<String>, expires: Date? = nil) {
            self.host = host.lowercased()
            self.pins = pins
            self.expires = expires
        }
    }

    /// What the policy decides for one handshake.
    public enum Decision: Sendable, Hashable {
        /// A key of the chain is pinned: connect.
        case pinned
        /// The host is pinned and no key of the chain is: refuse.
        case mismatch
        /// The host has no pin set, or it expired: ordinary certificate validation applies.
        case notPinned(expired: Bool)
    }

    /// The pin sets, by host.
    public let pinSets: [String: PinSet]

    /// Creates a policy.
    /// - Throws: ``PinningPolicyError`` when a host has fewer than two pins, a pin is not a base64 SHA-256,
    ///   or a host has two sets.
    public init(_ pinSets: [PinSet]) throws(PinningPolicyError) {
        var byHost: [String: PinSet] = [:]
        for set in pinSets {
            guard byHost[set.host] == nil else { throw .duplicateHost(set.host) }
            guard set.pins.count >= 2 else { throw .noBackupPin(host: set.host) }
            for pin in set.pins where Data(base64Encoded: pin)?.count != 32 {
                throw .invalidPin(host: set.host, pin: pin)
            }
            byHost[set.host] = set
        }
        self.pinSets = byHost
    }

    /// The decision for a handshake with `host` presenting keys whose SPKI hashes are `chainPins` (base64
    /// SHA-256, leaf first), at `now`.
    public func decision(host: String, chainPins: [String], now: Date) -> Decision {
        guard let set = pinSets[host.lowercased()] else { return .notPinned(expired: false) }
        if let expires = set.expires, now >= expires { return .notPinned(expired: true) }
        return chainPins.contains(where: set.pins.contains) ? .pinned : .mismatch
    }
}

/// Why a ``PinningPolicy`` was refused.
public enum PinningPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A host has one pin: add the backup key's pin, or a rotation would lock users out.
    case noBackupPin(host: String)
    /// A pin is not the base64 of 32 bytes.
    case invalidPin(host: String, pin: String)
    /// Two pin sets name the same host.
    case duplicateHost(String)

    public var description: String {
        switch self {
        case .noBackupPin(let host): "\(host) has a single pin: pin a backup key too, or a rotation would lock users out"
        case .invalidPin(let host, let pin): "\(host): '\(pin)' is not a base64 SHA-256 (32 bytes)"
        case .duplicateHost(let host): "\(host) has two pin sets: merge them"
        }
    }
}
