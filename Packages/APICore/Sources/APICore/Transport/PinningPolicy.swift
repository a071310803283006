import Foundation

/// Certificate pinning (REQ SEC-1): for each pinned host, the SHA-256 of the SubjectPublicKeyInfo of keys
/// its certificate chain must contain, base64-encoded (`openssl x509 -pubkey | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64`). Each host needs at least two pins: the key in use and a backup
/// key kept offline, so a rotation never locks users out.
///
/// The rule is **fail closed**: a connection that does not prove a pinned key is refused during the
/// handshake, before any request byte is sent (``TransportError/pinMismatch(host:)``). A pinned host is
/// trusted by its pins alone: a chain need not lead to a system root, so a private CA or a self-signed key
/// can be pinned.
///
/// What counts as proven (the trust model, enforced by `APICorePinning`'s `PinnedTransport`): the TLS
/// handshake proves possession of the **leaf's** key only; the other certificates a server presents are
/// bytes anyone can copy. So a pinned leaf key counts when it is the leaf's (valid now, naming the host),
/// and a pinned intermediate or root key counts only when a verified path (signatures, validity dates,
/// basic constraints) leads from the leaf, which must name the host, to the certificate carrying it.
/// A certificate merely appended to the chain counts for nothing.
///
/// **Rotation**: pin the key of your issuing intermediate (or your private CA) and a backup key kept
/// offline; leaf certificates can then be renewed without an app update. Pinning the leaf key works too,
/// but each renewal must keep the key or ship the new pin first.
///
/// A pin set may expire (`expires`). After that date the host is **no longer pinned**: the connection
/// falls back to the platform's ordinary certificate validation (system roots and host name) and a warning
/// is logged, so an app that was not updated still works, with ordinary TLS, rather than failing for
/// every user. Hosts without a pin set get ordinary validation too.
public struct PinningPolicy: Sendable, Hashable {
    /// The pins of one host.
    public struct PinSet: Sendable, Hashable {
        /// The host name (or IP address), normalized (``URLOrigin/normalizedHost(_:)``): any spelling of the
        /// host in a request URL (case, a trailing dot, Unicode or its `xn--` form) finds this set.
        public var host: String
        /// Base64 SHA-256 hashes of SubjectPublicKeyInfo DER.
        public var pins: Set<String>
        /// After this date the host is no longer pinned; `nil` for never.
        public var expires: Date?

        /// Creates a pin set.
        public init(host: String, pins: Set<String>, expires: Date? = nil) {
            self.host = URLOrigin.normalizedHost(host)
            self.pins = pins
            self.expires = expires
        }
    }

    /// What the policy decides for a host, before any handshake.
    public enum Decision: Sendable, Hashable {
        /// The host is pinned: a connection must prove one of these keys, on a verified path from the leaf.
        case pinned(PinSet)
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

    /// The decision for a connection to `host` at `now`.
    public func decision(host: String, now: Date) -> Decision {
        guard let set = pinSets[URLOrigin.normalizedHost(host)] else { return .notPinned(expired: false) }
        if let expires = set.expires, now >= expires { return .notPinned(expired: true) }
        return .pinned(set)
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
