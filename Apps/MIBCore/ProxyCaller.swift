import Foundation
import HTTPTypes

/// Who is asking, as `mib proxy` tells callers apart: by the request fields that carry a credential or an
/// identity, and by nothing else.
///
/// A caller is identified by
/// - `Authorization`, `Proxy-Authorization` and `Cookie`;
/// - the fields an authenticating front adds: `X-Forwarded-User`, `X-Forwarded-Email`,
///   `X-Forwarded-Client-Cert` (and any other `X-Forwarded-` field but the route's `-Host`, `-Proto`,
///   `-Port`, `-Prefix`, `-Server`, `-Uri` and `-Method`), the `for=` of `Forwarded`, `X-Forwarded-For`,
///   the client-address fields (`X-Real-IP`, `True-Client-IP`, `CF-Connecting-IP`, `X-Client-IP`),
///   `Remote-User`, `X-Remote-User`, `X-Vouch-User`;
/// - any field whose name says it carries a credential or an identity: its letters contain `token`, `key`,
///   `auth`, `session`, `secret`, `signature`, `password`, `passwd`, `credential`, `cookie`, `jwt`,
///   `principal`, `cert`, `impersonate`, `sudo`, `login`, `username`, `userid`, `userinfo` or `email`, in any
///   case and with any separators (`PRIVATE-TOKEN`, `X-Goog-Api-Key`, `X-Auth-Token`, `Api-Key`,
///   `X-Amz-Security-Token`, `Tailscale-User-Login`, `X-Ms-Client-Principal-Name`), except those that never
///   name a caller: any `Idempotency-Key` (`X-Idempotency-Key` too), `Sec-WebSocket-Key` and
///   `Sec-WebSocket-Accept`;
/// - the fields named with `mib proxy --caller-field` (``extraFields``), for an API whose credential field
///   matches none of the above.
///
/// An underscore in a name counts as a hyphen (`X_Forwarded_User`), as CGI-style origins read it. Every
/// other field, whatever its value (a request counter, `sentry-trace`, `baggage`, `X-Amzn-Trace-Id`,
/// `X-Request-Id`), never splits callers: content negotiation stays with the origin's `Vary`, which the
/// cache honours within each caller's cache. A caller sending none of these fields is the anonymous
/// caller; all such callers share one cache, and so the proxy never serves a stored `Set-Cookie`
/// (``ProxyResponder``). A credential that changes with every request (an AWS SigV4 `Authorization`, a
/// timestamped `X-Sentry-Auth`) makes every request a caller of its own: nothing is reused, nothing shared.
struct ProxyCaller: Sendable {
    /// The caller's identifying fields, names lower-cased, values as sent (joined in order), sorted by
    /// name: the empty list for the anonymous caller.
    let fields: [(name: String, value: String)]

    /// Whether the caller sent no identifying field.
    var isAnonymous: Bool { fields.isEmpty }

    /// The names of the fields that identify it, for `X-Cache` (never their values).
    var fieldNames: [String] { fields.map(\.name) }

    /// One string that differs between any two callers (to be hashed before it is kept).
    var key: String {
        fields.map { $0.name + "=" + $0.value }.joined(separator: "\n")
    }

    /// The caller sending `requestFields`, with `extraFields` (lower-cased names) identifying too.
    init(_ requestFields: HTTPFields, extraFields: Set<String> = []) {
        var values: [String: [String]] = [:]
        for field in requestFields {
            let name = field.name.canonicalName
            guard Self.identifies(name, extraFields: extraFields) else { continue }
            let value = name == "forwarded" ? Self.forwardedFor(field.value) : field.value
            guard !value.isEmpty else { continue }
            values[name, default: []].append(value)
        }
        fields = values.keys.sorted().map { name in
            let items = (values[name] ?? []).joined(separator: ",")
                .split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return (name, items.joined(separator: ", "))
        }
    }

    /// Whether a field named `name` (lower-cased) identifies its caller.
    static func identifies(_ name: String, extraFields: Set<String> = []) -> Bool {
        // `X_Forwarded_User` is `X-Forwarded-User` to a CGI, WSGI, Rack or PHP origin.
        let name = name.replacingOccurrences(of: "_", with: "-")
        if extraFields.contains(name) || identifyingFields.contains(name) { return true }
        if neverIdentifying.contains(name) || name.contains("idempotency") { return false }
        if name.hasPrefix("x-forwarded-") { return !forwardingRoute.contains(name) }
        let letters = name.filter { $0.isLetter }
        return credentialWords.contains { letters.contains($0) }
    }

    /// Fields that identify their caller by name.
    static let identifyingFields: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "forwarded", "x-forwarded-for", "remote-user",
        "x-remote-user", "x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip", "x-vouch-user",
    ]

    /// The words that say a field carries a credential, matched in the name's letters alone (so `api_key`,
    /// `Api-Key` and `APIKEY` all contain `key`).
    static let credentialWords = [
        "token", "key", "auth", "session", "secret", "signature", "password", "passwd", "credential", "cookie", "jwt",
        "principal", "cert", "impersonate", "sudo", "login", "username", "userid", "userinfo", "email",
    ]

    /// Fields whose names hold a credential word but that name no caller: a key per request, and the
    /// WebSocket handshake's nonce.
    static let neverIdentifying: Set<String> = ["idempotency-key", "sec-websocket-key", "sec-websocket-accept"]

    /// The `X-Forwarded-` fields that describe the route or the request, not the caller.
    static let forwardingRoute: Set<String> = [
        "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-forwarded-prefix", "x-forwarded-server",
        "x-forwarded-uri", "x-forwarded-method",
    ]

    /// The `for=` values of a `Forwarded` field (RFC 7239), in order: the client as each front saw it; its
    /// `proto=`, `host=` and `by=` describe the route.
    static func forwardedFor(_ value: String) -> String {
        value.split(separator: ",").compactMap { element in
            element.split(separator: ";").lazy
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.lowercased().hasPrefix("for=") }
                .map { String($0.dropFirst(4)) }
        }.joined(separator: ", ")
    }
}
