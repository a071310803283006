import Foundation
import Testing

@testable import APICore

/// An error written into a log line carries no server message, body, partial data or URL (security
/// review, finding 12): what a log collector, a crash reporter or a screenshot of the console would keep.
@Suite(.timeLimit(.minutes(10))) struct ErrorRedactionTests {
    @Test func aLoggedErrorKeepsItsKindStatusAndCodeAndNothingTheServerOrTheUserWrote() throws {
        let secret = "alice@example.com owes 4,200 EUR"
        let errors: [APIError] = [
            .server(ServerError(status: 422, code: "INSUFFICIENT_FUNDS", message: secret)),
            .status(code: 500, body: Data(secret.utf8)),
            .unauthorized(body: Data(secret.utf8)),
            .forbidden(body: Data(secret.utf8)),
            .transport(.other(reason: "https://api.example.com/users/\(secret)")),
            .transport(.connectionLost(reason: secret)),
            .decoding(path: "data.account.balance", reason: "expected a number, found \"\(secret)\""),
            .invalidRequest(reason: secret),
            .requiresConnection(operation: secret),
        ]
        for error in errors {
            let logged = "\(error)"
            #expect(!logged.contains("alice"), "\(logged)")
            #expect(!logged.contains("4,200"), "\(logged)")
            #expect(logged.hasPrefix("APIError."))
        }
        #expect("\(errors[0])" == "APIError.server, status 422, code INSUFFICIENT_FUNDS")
        #expect("\(errors[6])" == "APIError.decoding, at data.account.balance")
        #expect("\(errors[4])" == "APIError.transport.other, the transport failed", "the transport's kind, never its reason")
        // The debugger still sees everything.
        #expect(String(reflecting: errors[0]).contains(secret))
    }

    /// Credentials print their user, never their token, in every form a log or a failed assertion uses.
    @Test func credentialsNeverPrintTheirToken() {
        let credentials = Credentials(accessToken: "secret-token-123", userId: "u1")
        for printed in ["\(credentials)", String(reflecting: credentials), "\([credentials])", "\(Optional(credentials) as Any)"] {
            #expect(!printed.contains("secret-token-123"), "\(printed)")
            #expect(printed.contains("u1"))
        }
    }
}
