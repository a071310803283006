import Foundation

/// What API telemetry records (REQ OBS-1). Every field is safe to export by construction: a kind from a
/// fixed list, an endpoint template (``EndpointTemplate``: no ids, no query values), an HTTP status, a
/// server error code only when it is a plain `UPPER_SNAKE` constant, and a timestamp. No body, message,
/// header, token, e-mail or account id can reach an event.
public enum APITelemetryEvent: Sendable, Hashable {
    /// A request failed with an ``APIError``.
    case error(APIErrorEvent)
    /// A request was retried.
    case retry(APIRetryEvent)
    /// The error-rate alert fired or cleared.
    case alert(ErrorRateAlert.Status)
}

/// One ``APIError``, reduced to what may leave the device.
public struct APIErrorEvent: Sendable, Hashable {
    /// The error's kind: `transport.offline`, `transport.timedOut`, `transport.connectionLost`, `transport.pinMismatch`, `transport.invalidRequest`, `transport.other`, `unauthorized`,
    /// `forbidden`, `server`, `status`, `decoding`, `notCached`, `invalidRequest`, `invalidOperation`,
    /// `graphQL`, `requiresConnection` or `rateLimited`.
    public var kind: String
    /// The endpoint's template, such as `/api/accounts/{id}` or `/graphql#AccountBalance`.
    public var endpoint: String
    /// The HTTP status, when a server answered.
    public var status: Int?
    /// The server's error code (`INSUFFICIENT_FUNDS`), only when it is a plain constant.
    public var code: String?
    /// When it happened, by the app's clock.
    public var at: Date

    /// Creates an event from an error; nothing but its kind, status and a constant-like code is kept.
    public init(_ error: APIError, endpoint: String, at: Date) {
        kind = error.telemetryKind
        self.endpoint = endpoint
        status = error.httpStatus
        code = error.serverCode.flatMap(Self.constant)
        self.at = at
    }

    /// `code` when it reads like a constant (`[A-Z][A-Z0-9_]{0,39}`), else `nil`: a server that put a
    /// message or a value in its code field does not leak it.
    static func constant(_ code: String) -> String? {
        guard let first = code.utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z"), code.utf8.count <= 40,
            code.utf8.allSatisfy({
                ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "_")
            })
        else { return nil }
        return code
    }
}

/// One retry of a request and how that attempt ended.
public struct APIRetryEvent: Sendable, Hashable {
    /// How a retried attempt ended.
    public enum Outcome: String, Sendable, Hashable {
        /// The retried attempt got a response that is not retried again.
        case succeeded
        /// The retried attempt failed and will be retried.
        case failed
        /// The retried attempt failed and no attempt is left.
        case gaveUp = "gave_up"
    }

    /// The endpoint's template.
    public var endpoint: String
    /// The attempt number of the retry (2 for the first retry).
    public var attempt: Int
    /// How it ended.
    public var outcome: Outcome
    /// When it ended, by the app's clock.
    public var at: Date
}

extension APIError {
    /// The kind telemetry records.
    var telemetryKind: String {
        switch self {
        case .transport(.offline): "transport.offline"
        case .transport(.timedOut): "transport.timedOut"
        case .transport(.connectionLost): "transport.connectionLost"
        case .transport(.pinMismatch): "transport.pinMismatch"
        case .transport(.invalidRequest): "transport.invalidRequest"
        case .transport: "transport.other"
        case .cancelled: "cancelled"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .server: "server"
        case .status(code: 429, _): "rateLimited"
        case .status: "status"
        case .decoding: "decoding"
        case .notCached: "notCached"
        case .invalidRequest: "invalidRequest"
        case .invalidOperation: "invalidOperation"
        case .graphQL: "graphQL"
        case .requiresConnection: "requiresConnection"
        case .sessionChanged: "sessionChanged"
        }
    }

    /// The HTTP status a server answered with, when the error carries one.
    var httpStatus: Int? {
        switch self {
        case .unauthorized: 401
        case .forbidden: 403
        case .server(let error): error.status
        case .status(let code, _): code
        default: nil
        }
    }
}
