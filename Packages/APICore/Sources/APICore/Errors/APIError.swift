import Foundation

/// Why a request failed, typed so a caller can act on each case.
public enum APIError: Error, Sendable, Hashable {
    /// No response: offline, timed out, connection dropped (see ``TransportError``).
    case transport(TransportError)
    /// The caller's task was cancelled.
    case cancelled
    /// 401: the session is no longer valid. Also published as an ``AuthEvent``.
    case unauthorized(body: Data)
    /// 403: the signed-in user may not see this. Also published as an ``AuthEvent``.
    case forbidden(body: Data)
    /// A non-2xx response carrying the server's error envelope
    /// `{"success": false, "error": {"code", "message", "details"}}`.
    case server(ServerError)
    /// Any other non-2xx response.
    case status(code: Int, body: Data)
    /// A 2xx body that did not decode; `path` is the coding path (`data.pillars[3].slug`).
    case decoding(path: String, reason: String)
    /// Cache-only policy and no fresh cached response. For a GraphQL query, ``MissingData/path`` names
    /// the first field the store lacked (`QUERY_ROOT.__typename` when the response that filled it had
    /// no `__typename` at its root).
    case notCached(MissingData = MissingData())
    /// The request could not be built (a path that makes no URL).
    case invalidRequest(reason: String)
    /// A GraphQL operation whose document does not parse, or a call missing a required variable.
    case invalidOperation(GraphQLOperationError)
    /// A GraphQL response with an `errors` array: each error's message and path, and the partial data.
    case graphQL(GraphQLErrors)
    /// No server answered, and the mutation is one its kit declared never queued (a payment, a
    /// purchase): show "Connect to continue". Nothing was applied.
    case requiresConnection(operation: String)
    /// The request was for a user who is no longer the one signed in (a sync or a background load that
    /// outlived a logout or another user's sign-in): it was not sent, with anyone's token.
    case sessionChanged

    /// Whether the network could not be reached at all (show an offline banner).
    public var isOffline: Bool {
        if case .transport(.offline) = self { true } else { false }
    }

    /// Whether no server answered: unreachable, timed out, or the connection dropped (not a
    /// cancellation). What a screen shows its last known data for, and what marks the app offline.
    public var reachedNoServer: Bool {
        switch self {
        case .transport(.cancelled), .transport(.invalidRequest): false
        case .transport: true
        default: false
        }
    }

    /// Whether the server gave its last word on the request: it answered with a success or a refusal that
    /// sending the same request again would not change (a 4xx other than 408 and 429). Anything else (no
    /// answer, a timeout, a dropped connection, a 5xx) leaves the outcome of a change unknown: the server
    /// may have applied it. A purchase or a payment keeps its idempotency key until this is true
    /// (``IntentKeys``).
    public var isFinalAnswer: Bool {
        switch self {
        case .transport, .cancelled, .requiresConnection, .sessionChanged: false
        case .server(let server): !(server.status >= 500 || [408, 429].contains(server.status))
        case .status(let code, _): !(code >= 500 || [408, 429].contains(code))
        default: true
        }
    }

    /// Whether sending the same request again could succeed: no server answered (and the caller did
    /// not cancel), or the server answered 5xx, 408 or 429. What the mutation queue and GraphQL
    /// mutations retry on.
    public var isRetryable: Bool {
        switch self {
        case .transport(let transport): transport != .cancelled
        case .server(let server): server.status >= 500 || [408, 429].contains(server.status)
        case .status(let code, _): code >= 500 || [408, 429].contains(code)
        default: false
        }
    }

    /// Whether the request timed out.
    public var isTimeout: Bool {
        if case .transport(.timedOut) = self { true } else { false }
    }

    /// The server's error code: `INVALID_CURSOR` from the REST envelope, or the first GraphQL
    /// error's `extensions.code`.
    public var serverCode: String? {
        switch self {
        case .server(let error): error.code
        case .graphQL(let failure): failure.errors.lazy.compactMap(\.code).first
        default: nil
        }
    }

    /// The error for a non-2xx response: ``unauthorized(body:)``, ``forbidden(body:)``,
    /// ``server(_:)`` when the body is the server's envelope, else ``status(code:body:)``.
    public init(status: Int, body: Data) {
        switch status {
        case 401: self = .unauthorized(body: body)
        case 403: self = .forbidden(body: body)
        default: self = ServerError.decode(status: status, body: body).map { .server($0) } ?? .status(code: status, body: body)
        }
    }

    /// Maps a decoding error to ``decoding(path:reason:)`` with its coding path.
    public init(_ error: DecodingError) {
        let (context, reason): (DecodingError.Context?, String) =
            switch error {
            case .typeMismatch(let type, let context): (context, "expected \(type): \(context.debugDescription)")
            case .valueNotFound(let type, let context): (context, "missing \(type): \(context.debugDescription)")
            case .keyNotFound(let key, let context): (context, "missing key '\(key.stringValue)': \(context.debugDescription)")
            case .dataCorrupted(let context): (context, "malformed: \(context.debugDescription)")
            @unknown default: (nil, "\(error)")
            }
        var path = ""
        for key in context?.codingPath ?? [] {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        if case .keyNotFound(let key, _) = error {
            path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
        self = .decoding(path: path, reason: reason)
    }
}

/// The server's error envelope, decoded.
public struct ServerError: Sendable, Hashable {
    /// The HTTP status it came with.
    public var status: Int
    /// The machine-readable code (`INVALID_CURSOR`).
    public var code: String
    /// The human-readable message.
    public var message: String
    /// Extra details (`{"cursor": "..."}`), if any.
    public var details: [String: JSONValue]?

    /// Creates an error.
    public init(status: Int, code: String, message: String, details: [String: JSONValue]? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    /// Decodes the envelope from a body, or `nil` when the body is not one.
    static func decode(status: Int, body: Data) -> ServerError? {
        struct Envelope: Decodable {
            struct Failure: Decodable {
                var code: String
                var message: String
                var details: [String: JSONValue]?
            }
            var success: Bool
            var error: Failure
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body), !envelope.success else {
            return nil
        }
        return ServerError(
            status: status, code: envelope.error.code, message: envelope.error.message,
            details: envelope.error.details)
    }
}

/// What a cache-only read lacked, for people: it never takes part in equality, so
/// `APIError.notCached()` matches every miss.
public struct MissingData: Sendable, Hashable, CustomStringConvertible {
    /// The first field not stored (`Account:100.balance`), when the cache knows it.
    public var path: String?

    /// Creates the description of a miss.
    public init(path: String? = nil) {
        self.path = path
    }

    /// Every miss equals every other: the path explains, it does not distinguish.
    public static func == (lhs: MissingData, rhs: MissingData) -> Bool { true }

    /// Hashes nothing, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {}

    /// `missing Account:100.balance`, or `nothing cached`.
    public var description: String { path.map { "missing \($0)" } ?? "nothing cached" }
}

extension APIError: CustomStringConvertible, CustomDebugStringConvertible {
    /// What a log may say of the error (security review, finding 12): its kind, the HTTP status, the
    /// server's error code and, for a body that did not decode, where. Never a server message, a body,
    /// GraphQL partial data, an operation's variables or a transport's reason (which can hold a URL), so
    /// `"\(error)"` in a log line leaks nothing. ``debugDescription`` keeps everything, for a debugger.
    public var description: String {
        var parts = ["APIError." + telemetryKind]
        if let status = httpStatus { parts.append("status \(status)") }
        if let code = serverCode,
            code.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
        {
            parts.append("code \(code)")
        }
        if case .decoding(let path, _) = self { parts.append("at \(Self.redacted(codingPath: path))") }
        if case .transport(let error) = self { parts.append("\(error)") }
        return parts.joined(separator: ", ")
    }

    /// A coding path with every key that is not a plain word (letters and `_`) replaced by `{key}`: a
    /// dictionary keyed by ids (`data.byId.acct-4242.balance`) names no id in a log. Indexes are kept.
    static func redacted(codingPath: String) -> String {
        codingPath.split(separator: ".", omittingEmptySubsequences: false).map { component -> String in
            let name = component.prefix { $0 != "[" }
            let isWord = name.allSatisfy { ($0.isLetter && $0.isASCII) || $0 == "_" }
            return (isWord ? String(name) : "{key}") + component.dropFirst(name.count)
        }.joined(separator: ".")
    }

    /// Everything the error carries (bodies and messages included): for a debugger, never for a log.
    public var debugDescription: String {
        guard let payload = Mirror(reflecting: self).children.first else { return "APIError.\(telemetryKind)" }
        return "APIError.\(payload.label ?? telemetryKind)(\(String(reflecting: payload.value)))"
    }
}
