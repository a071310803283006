import Foundation
import HTTPTypes
import Hummingbird

/// What a server on 127.0.0.1 refuses from a web page the developer happens to visit (security review,
/// finding 11):
/// - a `Host` other than a loopback name (`127.0.0.1`, `localhost`, `[::1]`): a DNS-rebinding page sends
///   its own domain's name, so it can read nothing;
/// - a state change (`POST`, `PUT`, `PATCH`, `DELETE`) whose `Origin` is not the server's own: a
///   cross-site form or `fetch`;
/// - with a `token`, a state change without it in `X-MIB-Token`: the per-run token only the server's own
///   page (or its operator) knows, which no cross-site request can set.
///
/// Clients that are not browsers (the app, tests, `curl`) send no `Origin` and a loopback `Host`.
public struct LoopbackGuard<Context: RequestContext>: RouterMiddleware {
    /// The field that carries the per-run token.
    public static var tokenField: HTTPField.Name { HTTPField.Name("X-MIB-Token")! }

    let token: String?

    /// Creates the guard; `token`, when given, is required for every state change.
    public init(token: String? = nil) {
        self.token = token
    }

    /// Answers 403 to what the guard refuses, else passes the request on.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = Self.refusal(authority: request.head.authority, origin: nil) { return refusal }
        let authority = request.head.authority ?? ""
        if [.post, .put, .patch, .delete].contains(request.method) {
            if let origin = request.headers[.origin], origin != "http://\(authority)", origin != "https://\(authority)" {
                return Self.refused("Cross-site requests cannot change this server's state.")
            }
            if let token, request.headers[Self.tokenField] != token {
                return Self.refused("A state change needs this run's token in X-MIB-Token.")
            }
        }
        return try await next(request, context)
    }

    /// The 403 for a request whose `Host` is not a loopback name, whose `Origin` is not a loopback origin, or
    /// whose `Sec-Fetch-Site` says another site sent it (any method: what `mib proxy` refuses, which reads
    /// and stores for whoever asks); `nil` when it may pass.
    package static func refusal(authority: String?, origin: String?, fetchSite: String? = nil) -> Response? {
        guard let authority, isLoopback(authority: authority) else {
            return refused("This server answers requests for 127.0.0.1 or localhost only.")
        }
        // A browser's request from another site carries no Origin for an <img> or a <script>, but says so here.
        if let fetchSite, ["cross-site", "same-site"].contains(fetchSite.lowercased()) {
            return refused("Requests from web pages are refused.")
        }
        if let origin {
            let parts = origin.split(separator: "://", maxSplits: 1)
            guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()), isLoopback(authority: String(parts[1]))
            else { return refused("Requests from web pages are refused.") }
        }
        return nil
    }

    /// Whether `authority` (`host[:port]`) names this machine's loopback: exactly `127.0.0.1`, `localhost` or
    /// `[::1]`, followed by nothing or a port (`localhost.attacker.example` and `[::1].evil` are not).
    static func isLoopback(authority: String) -> Bool {
        let host: Substring
        let rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            rest = authority[authority.index(after: close)...]
        } else {
            host = authority.prefix { $0 != ":" }
            rest = authority.dropFirst(host.count)
        }
        guard
            rest.isEmpty
                || (rest.count > 1 && rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCII)
                    && rest.dropFirst().allSatisfy(\.isNumber))
        else { return false }
        return ["127.0.0.1", "localhost", "::1"].contains(host.lowercased())
    }

    private static func refused(_ message: String) -> Response {
        Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: .init(string: message)))
    }
}
