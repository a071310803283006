import APICore

#if canImport(APICoreHTTPClient)
    import APICoreHTTPClient
#endif

/// The transport `mib` sends through (demo, e2e, proxy, inspect, sync): AsyncHTTPClient on Linux, where
/// FoundationNetworking (libcurl) refuses a body with a `Content-Encoding` it does not know and rewrites
/// chunked framing, which an HTTP intermediary must pass through unchanged; URLSession on Apple platforms.
/// Neither follows a redirect: `mib proxy` returns the 3xx, and the scenarios expect none. An app's own
/// default stays `URLSessionTransport` (``Composition``).
public enum ToolTransport {
    /// A new transport with its own connection pool.
    public static func make() -> any HTTPTransport {
        #if canImport(APICoreHTTPClient)
            HTTPClientTransport()
        #else
            URLSessionTransport(followsRedirects: false)
        #endif
    }

    /// ``make()`` as a ``TransportFactory``.
    public static let factory: TransportFactory = { make() }
}
