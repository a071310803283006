import APICore
import Foundation
import HTTPTypes
import NIOHTTP1

/// The HTTP/1.1 head of a ``TransportRequest`` as it goes on the wire.
///
/// The request target is the URL's path and query **as given, percent-encoded**: decoding them would turn
/// `%2F`, `%3F` and `%23` into route changes and `%0D%0A` into a line break in the head. Anything written to
/// the head that holds a CR, an LF or another control character (or a space, in the target) is refused
/// with ``TransportError/invalidRequest(reason:)``, so a value can never start a header of its own.
///
/// The fields that frame the message and manage the connection are the transport's own: a caller's
/// `Host`, `Content-Length`, `Transfer-Encoding`, `Connection` and the other hop-by-hop fields are dropped,
/// so two of them can never disagree on where the request ends (request smuggling) or which host it is for.
enum RequestHead {
    /// The fields only the transport writes.
    static let ownFields: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
    ]

    static func make(_ request: TransportRequest, host: String, port: Int?) throws(TransportError) -> HTTPRequestHead {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest(reason: "the URL cannot be split into a path and a query")
        }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        guard !target.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .invalidRequest(reason: "the request target holds a space or a control character")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: port.map { "\(Self.bracketed(host)):\($0)" } ?? Self.bracketed(host))
        for field in request.headerFields where !ownFields.contains(field.name.canonicalName) {
            guard Self.isSafe(field.name.rawName), Self.isSafe(field.value) else {
                throw .invalidRequest(reason: "the header field \(field.name.canonicalName) holds a control character")
            }
            headers.add(name: field.name.rawName, value: field.value)
        }
        if let body = request.body { headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: target, headers: headers)
    }

    /// No CR, LF, NUL or other control character but the tab a field value may hold.
    private static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
