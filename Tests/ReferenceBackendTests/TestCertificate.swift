import APICore
import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// A certificate made for a test (swift-certificates), with its key and its pin: a self-signed leaf for
/// 127.0.0.1 by default, or an authority (a CA, as an intermediate) and the leaves it signs.
struct TestCertificate {
    let x509: Certificate
    let certificate: NIOSSLCertificate
    let signingKey: P256.Signing.PrivateKey
    let key: NIOSSLPrivateKey
    /// Base64 SHA-256 of its SubjectPublicKeyInfo.
    let pin: String

    /// A self-signed leaf for 127.0.0.1.
    init() throws {
        try self.init(subject: "127.0.0.1", names: [Self.loopback], isAuthority: false, issuer: nil)
    }

    /// A certificate for `subject`, naming `names`, signed by `issuer` (itself when `nil`), valid over `validity`.
    init(
        subject: String, names: [GeneralName], isAuthority: Bool, issuer: TestCertificate?,
        validity: ClosedRange<Date> = Date().addingTimeInterval(-3_600)...Date().addingTimeInterval(86_400),
        issuerName: String? = nil
    ) throws {
        let key = P256.Signing.PrivateKey()
        let subjectName = try DistinguishedName { CommonName(subject) }
        let issuerDistinguishedName =
            try issuerName.map { name in try DistinguishedName { CommonName(name) } } ?? issuer?.x509.subject ?? subjectName
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: issuerDistinguishedName,
            subject: subjectName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if isAuthority {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                } else {
                    BasicConstraints.notCertificateAuthority
                }
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: .init(issuer?.signingKey ?? key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        x509 = certificate
        self.certificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        signingKey = key
        self.key = try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)
        pin = Data(SHA256.hash(data: Array(key.publicKey.derRepresentation))).base64EncodedString()
    }

    /// A CA that signs leaves (an issuing intermediate, as an app would pin).
    static func authority(_ name: String = "Test Issuing CA") throws -> TestCertificate {
        try TestCertificate(subject: name, names: [], isAuthority: true, issuer: nil)
    }

    /// A leaf for `names` (127.0.0.1 by default) signed by `authority`.
    static func leaf(
        signedBy authority: TestCertificate, names: [GeneralName] = [loopback],
        validity: ClosedRange<Date> = Date().addingTimeInterval(-3_600)...Date().addingTimeInterval(86_400)
    ) throws -> TestCertificate {
        try TestCertificate(subject: "server", names: names, isAuthority: false, issuer: authority, validity: validity)
    }

    /// The IP address SAN of 127.0.0.1.
    static let loopback = GeneralName.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))

    /// A server configuration presenting this certificate (with its key), followed by `chain`.
    func server(presenting chain: [TestCertificate] = []) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: ([self] + chain).map { .certificate($0.certificate) }, privateKey: .privateKey(key))
        // A test server stopping waits this long at most for a client's close_notify (5 s by default).
        configuration.shutdownTimeout = .milliseconds(200)
        return configuration
    }

    /// A server configuration presenting this certificate alone.
    var server: TLSConfiguration { server() }

    /// A policy pinning this certificate's key for 127.0.0.1, with an offline backup.
    func policy(expires: Date? = nil) throws -> PinningPolicy {
        try PinningPolicy([.init(host: "127.0.0.1", pins: [pin, Self.unusedPin()], expires: expires)])
    }

    /// A pin of a key nobody uses (a backup kept offline).
    static func unusedPin() -> String {
        Data(SHA256.hash(data: Array(P256.Signing.PrivateKey().publicKey.derRepresentation))).base64EncodedString()
    }
}
