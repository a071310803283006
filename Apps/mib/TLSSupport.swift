import APICore
import ArgumentParser
import MIBCore
import ReferenceBackend

#if TLS
    import APICorePinning
    import ReferenceBackendTLS
#endif

/// What `mib` does over TLS (`serve --tls-certificate`, `e2e --pin`), built in by its `TLS` trait
/// (`swift run --traits TLS mib …`). Left out by default, so that the first command compiles neither
/// HTTPS serving nor pinning; without it, asking for TLS fails with one sentence saying how to build it in.
enum TLSSupport {
    /// Whether this build of `mib` has the `TLS` trait.
    static var isBuiltIn: Bool {
        #if TLS
            true
        #else
            false
        #endif
    }

    /// The error for an option that needs the `TLS` trait.
    static func notBuiltIn(_ option: String) -> ValidationError {
        ValidationError("\(option) needs mib built with TLS: run it as `swift run --traits TLS mib …`")
    }

    /// Makes `PinnedTransport`s enforcing `policy`.
    /// - Throws: a validation error without the `TLS` trait.
    static func pinnedTransport(_ policy: PinningPolicy) throws -> TransportFactory {
        #if TLS
            return { try PinnedTransport(policy: policy) }
        #else
            throw notBuiltIn("--pin")
        #endif
    }

    /// HTTPS with the PEM certificate chain and key in these files.
    /// - Throws: a validation error without the `TLS` trait; NIOSSL's when a file holds no PEM.
    static func https(certificateChainFile: String, privateKeyFile: String) throws -> ServerProtocol {
        #if TLS
            return try .https(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile)
        #else
            throw notBuiltIn("--tls-certificate")
        #endif
    }
}
