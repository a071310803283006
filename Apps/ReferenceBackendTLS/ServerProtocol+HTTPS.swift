import Foundation
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import ReferenceBackend

extension ServerProtocol {
    /// HTTPS over HTTP/1.1 with `configuration`'s certificate chain and key.
    /// - Throws: NIOSSL's error when the configuration cannot make a TLS context.
    public static func https(_ configuration: TLSConfiguration) throws -> ServerProtocol {
        ServerProtocol(builder: try .tls(.http1(), tlsConfiguration: configuration), scheme: "https")
    }

    /// HTTPS with the PEM certificate chain and private key in these files (`mib serve --tls-certificate`).
    /// - Throws: NIOSSL's error when a file cannot be read or holds no PEM certificate or key.
    public static func https(certificateChainFile: String, privateKeyFile: String) throws -> ServerProtocol {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainFile).map(NIOSSLCertificateSource.certificate)
        let key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
        return try https(.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
    }
}
