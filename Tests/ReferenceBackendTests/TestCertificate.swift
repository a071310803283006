import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed certificate for 127.0.0.1 made for a test (swift-certificates), with its key and its pin.
struct TestCertificate {
    let certificate: NIOSSLCertificate
    let key: NIOSSLPrivateKey
    /// Base64 SHA-256 of its SubjectPublicKeyInfo.
    let pin: String

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("127.0.0.1") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3_600), notValidAfter: Date().addingTimeInterval(86_400), issuer: name,
            subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        self.certificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        self.key = try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)
        pin = Data(SHA256.hash(data: Array(key.publicKey.derRepresentation))).base64EncodedString()
    }

    /// A server configuration presenting this certificate.
    var server: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
    }

    /// A pin of a key nobody uses (a backup kept offline).
    static func unusedPin() -> String {
        Data(SHA256.hash(data: Array(P256.Signing.PrivateKey().publicKey.derRepresentation))).base64EncodedString()
    }
}
