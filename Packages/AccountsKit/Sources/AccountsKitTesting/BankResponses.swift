import APICore
import APICoreTesting
import Foundation
import HTTPTypes

/// GraphQL responses of the bank, for unit tests that answer with a `RecordingTransport`: each
/// returns the transport answer for `POST /graphql`. Tests against real HTTP use the reference backend.
public enum BankResponses {
    /// `{"data": ...}` with status 200; the root's `__typename` (`Query`, which the client asks for)
    /// is added when `data` has none.
    public static func data(_ data: [String: JSONValue], root: String = "Query") -> RecordingTransport.Answer {
        var data = data
        if data["__typename"] == nil { data["__typename"] = .string(root) }
        return body(.object(["data": .object(data)]))
    }

    /// `{"errors": [{"message", "extensions": {"code"}}], "data": null}` with status 200.
    public static func error(code: String, message: String) -> RecordingTransport.Answer {
        body(
            .object([
                "errors": .array([.object(["message": .string(message), "extensions": .object(["code": .string(code)])])]),
                "data": .null,
            ]))
    }

    /// An account object as the bank sends it, `__typename` included.
    public static func account(id: String, name: String = "Checking", balance: Int, currency: String = "EUR") -> JSONValue {
        .object([
            "__typename": "Account", "id": .string(id), "name": .string(name), "balance": .int(balance),
            "currency": .string(currency),
        ])
    }

    private static func body(_ json: JSONValue) -> RecordingTransport.Answer {
        let bytes = json.serialized()
        return { _ in .success(TransportResponse(status: 200, headerFields: [.contentType: "application/json"], body: bytes)) }
    }
}
