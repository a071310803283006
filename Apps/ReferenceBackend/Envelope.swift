import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The response envelope (REQ CAT-1): `{"success": true, "data": …}` or
/// `{"success": false, "error": {"code", "message", "details"}}`.
enum Envelope {
    private struct Success<Payload: Encodable>: Encodable {
        var success = true
        var data: Payload
    }

    private struct Failure: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var details: [String: String]?
        }

        var success = false
        var error: Detail
    }

    static func success<Payload: Encodable>(
        _ payload: Payload, status: HTTPResponse.Status = .ok,
        fields: HTTPFields = [:]
    ) throws -> Response {
        json(try successBody(payload), status: status, fields: fields)
    }

    static func failure(
        _ status: HTTPResponse.Status, code: String, message: String,
        details: [String: String]? = nil
    ) -> Response {
        json(failureBody(code: code, message: message, details: details), status: status, fields: [.cacheControl: "no-store"])
    }

    /// The body of a success, for answers kept beside their idempotency key.
    static func successBody<Payload: Encodable>(_ payload: Payload) throws -> Data {
        try encoder.encode(Success(data: payload))
    }

    /// The body of a failure.
    static func failureBody(code: String, message: String, details: [String: String]? = nil) -> Data {
        (try? encoder.encode(Failure(error: .init(code: code, message: message, details: details)))) ?? Data()
    }

    static func json(_ body: Data, status: HTTPResponse.Status, fields: HTTPFields) -> Response {
        var fields = fields
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
