import APICore
import Foundation
import NIOSSL
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Decides whether a presented certificate chain proves a pinned key (REQ SEC-1).
///
/// The TLS handshake proves possession of the **leaf's** private key only; every other certificate the
/// peer presents is bytes it chose to send, and anyone can copy a server's public certificates. So a pin
/// counts only for a key on a **verified path**:
/// - a pinned leaf key: the leaf itself, valid now, naming the host (DNS name or IP address SAN);
/// - a pinned intermediate or root key: a path from the leaf to a presented certificate carrying that key,
///   checked by swift-certificates' `Verifier` (signatures, validity dates, basic constraints, name
///   constraints) and the leaf naming the host.
///
/// A presented certificate that is not on the verified path counts for nothing. The certificate carrying
/// a pinned intermediate or root key must be presented by the server (as intermediates usually are).
struct PinVerifier: Sendable {
    /// The pin set of the host being connected to.
    let pins: Set<String>
    /// The host as the request names it: a DNS name or an IP address.
    let host: String
    /// The time the validity dates are read against.
    let now: Date

    /// Whether `presented` (leaf first, as the peer sent it) proves a pinned key for the host.
    func verify(_ presented: [NIOSSLCertificate]) async -> Bool {
        let certificates: [(certificate: Certificate, pin: String)]
        do {
            certificates = try presented.map { (try Certificate(derEncoded: try $0.toDERBytes()), try PinnedTransport.pin(of: $0)) }
        } catch {
            return false
        }
        guard let leaf = certificates.first else { return false }
        let identity =
            isAddress
            ? ServerIdentityPolicy(serverHostname: nil, serverIP: host) : ServerIdentityPolicy(serverHostname: host, serverIP: nil)
        if pins.contains(leaf.pin) {
            // The handshake proved the leaf's key: it needs only to be valid now and to name the host.
            var verifier = Verifier(rootCertificates: CertificateStore([leaf.certificate])) {
                ValidityPolicy(now: now)
                identity
            }
            return await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore()).isValid
        }
        let anchors = certificates.dropFirst().filter { pins.contains($0.pin) }.map(\.certificate)
        guard !anchors.isEmpty else { return false }
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: now)
            identity
        }
        let intermediates = CertificateStore(certificates.dropFirst().map(\.certificate))
        return await verifier.validate(leaf: leaf.certificate, intermediates: intermediates).isValid
    }

    private var isAddress: Bool { IPAddressText.isAddress(host) }
}

/// Whether a URL's host is an IP address literal (then the certificate must carry it as an IP SAN, and no
/// server name is sent).
enum IPAddressText {
    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") })
    }
}

/// A leaf is used within its validity dates, read against the transport's clock.
private struct ValidityPolicy: VerifierPolicy {
    let now: Date
    /// What RFC 5280's policy accepts as critical, so a leaf is judged the same whichever key is pinned.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = RFC5280Policy().verifyingCriticalExtensions

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        for certificate in chain where now < certificate.notValidBefore || now > certificate.notValidAfter {
            return .failsToMeetPolicy(reason: "a certificate is outside its validity dates")
        }
        return .meetsPolicy
    }
}

extension CertificateValidationResult {
    fileprivate var isValid: Bool {
        if case .validCertificate = self { true } else { false }
    }
}
