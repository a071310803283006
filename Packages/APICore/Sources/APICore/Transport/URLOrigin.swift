import Foundation

/// A URL's origin (RFC 6454): its scheme, host and port, the unit credentials belong to.
///
/// The scheme and host are compared without case, a host's trailing dot is dropped
/// (`api.example.com.` is `api.example.com`), and a missing port is the scheme's default (80 or 443), so
/// `https://API.example.com:443/x` and `https://api.example.com/y` have one origin.
public struct URLOrigin: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower-cased.
    public let scheme: String
    /// The host, normalized by ``normalizedHost(_:)``.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int

    /// The origin of `url`; `nil` when it has no scheme or no host.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = Self.normalizedHost(host)
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }

    /// The origin of the URL `text`; `nil` when it is no URL with a scheme and a host.
    public init?(_ text: String) {
        guard let url = URL(string: text) else { return nil }
        self.init(url)
    }

    /// `scheme://host:port`.
    public var description: String { "\(scheme)://\(host):\(port)" }

    /// A host name as DNS resolves it, one spelling per host: lower-cased, percent-decoded, without a
    /// trailing dot, and each label with characters outside ASCII in its IDNA form (`xn--…`, RFC 3492).
    /// What pins and origins are looked up by, so another spelling of a host is the same host.
    public static func normalizedHost(_ host: String) -> String {
        var name = (host.removingPercentEncoding ?? host).lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { return name }
        while name.hasSuffix(".") { name.removeLast() }
        guard !name.allSatisfy(\.isASCII) else { return name }
        return name.split(separator: ".", omittingEmptySubsequences: false)
            .map { label in label.allSatisfy(\.isASCII) ? String(label) : Punycode.encode(label).map { "xn--" + $0 } ?? String(label) }
            .joined(separator: ".")
    }
}
