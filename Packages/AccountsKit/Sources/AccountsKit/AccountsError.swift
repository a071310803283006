import APICore
import Foundation

/// Why an accounts use case failed, typed so a screen can act on each case.
public enum AccountsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The amount is not a positive number of cents; no request was sent.
    case invalidAmount(Int)
    /// The account does not have the funds (`INSUFFICIENT_FUNDS`); nothing changed.
    case insufficientFunds(accountId: String)
    /// No account of the signed-in user has this id (`UNKNOWN_ACCOUNT`, or none returned).
    case unknownAccount(String)
    /// A payment while no server answers: payments are never queued. Show "Connect to pay"; nothing
    /// was applied.
    case requiresConnection
    /// The payment was sent but no answer came (a timeout, a dropped connection, a server error): it may
    /// have gone through. The same payment again asks the server with the same idempotency key, which
    /// answers with the first outcome: never paid twice.
    case paymentOutcomeUnknown(accountId: String)
    /// Any other failure: offline, a 500, a GraphQL error, a body that does not decode.
    case api(APIError)

    /// The error for an APICore failure, recognising the bank's codes.
    init(_ error: APIError, accountId: String? = nil) {
        if case .requiresConnection = error {
            self = .requiresConnection
            return
        }
        switch error.serverCode {
        case "INSUFFICIENT_FUNDS": self = .insufficientFunds(accountId: accountId ?? "")
        case "UNKNOWN_ACCOUNT": self = .unknownAccount(accountId ?? "")
        default: self = .api(error)
        }
    }

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .invalidAmount(let amount): "an amount must be a positive number of cents, not \(amount)"
        case .insufficientFunds: "the account does not have the funds"
        case .unknownAccount: "there is no such account"
        case .requiresConnection: "a payment needs a connection: connect to pay"
        case .paymentOutcomeUnknown: "the payment was sent and no answer came"
        case .api(let error): "the bank could not be reached or refused: \(error)"
        }
    }
}

extension AccountsError: LocalizedError {
    /// A sentence for people; APICore's for what it passes on.
    public var errorDescription: String? {
        switch self {
        case .invalidAmount: "Enter an amount greater than zero."
        case .insufficientFunds: "There isn't enough money in this account."
        case .unknownAccount: ErrorMessages.status(404)
        case .requiresConnection: ErrorMessages.connectToContinue
        case .paymentOutcomeUnknown: "We could not confirm this payment. Try again: it will not be paid twice."
        case .api(let error): error.errorDescription
        }
    }
}
