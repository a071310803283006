import APICore
import APICoreREST
import AccountsKit
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// Money is safe to retry: a payment or a purchase whose answer was lost (the server took it, the client
/// never heard) is "outcome unknown", and asked again, also after a relaunch, it is applied once. Through
/// the real composition against the reference backend, whose `answerLost` fault applies a request and then
/// closes the connection.
@Suite(.timeLimit(.minutes(10))) struct RetrySafeMoneyTests {
    /// The app over `caches` against the fixture's backend (a second one over the same folder is a relaunch).
    static func app(_ fixture: BackendFixture, caches: URL, support: URL? = nil) throws -> DemoComposition {
        try DemoComposition(
            baseURL: fixture.backend.baseURL, cachesDirectory: caches, supportDirectory: support, logger: AppLifeTests.quiet)
    }

    static func answerLost(_ prefix: String) -> String { #"[{"pathPrefix":"\#(prefix)","answerLost":true}]"# }

    @Test func aPaymentWhoseAnswerWasLostIsPaidOnceWhenAskedAgainAfterARelaunch() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let caches = directory.url.appendingPathComponent("caches")
            let app = try Self.app(fixture, caches: caches)
            try await app.signIn()
            let before = try await app.accounts.balance(accountId: "100", policy: .fetchIgnoringCacheData).value.amount
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.answerLost("/graphql")).status == 204)
            await #expect(throws: AccountsError.paymentOutcomeUnknown(accountId: "100")) {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 700, description: "Rent")
            }
            #expect(await app.accounts.isPaymentUnconfirmed(accountId: "100", amount: 700, description: "Rent"))
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            let taken = try #require(try fixture.backend.catalog.account(id: "100")).balance
            #expect(taken == before - 700, "the server took the payment whose answer was lost")

            // Relaunched, the user pays again: the same key, the first outcome, nothing debited twice.
            let relaunched = try Self.app(fixture, caches: caches)
            _ = await relaunched.composition.launch(offlineFirst: false)
            let receipt = try await relaunched.accounts.makePayment(accountId: "100", amount: 700, description: "Rent")
            #expect(receipt.newBalance == before - 700)
            #expect(await relaunched.accounts.isPaymentUnconfirmed(accountId: "100", amount: 700, description: "Rent") == false)
            // Its outcome known, the same payment again is a new one.
            let second = try await relaunched.accounts.makePayment(accountId: "100", amount: 700, description: "Rent")
            #expect(second.newBalance == before - 1_400)
            #expect(second.transaction.id != receipt.transaction.id)
        }
    }

    /// The answer was lost, then a retry met an answer that is final but not the payment's (a 409 from a proxy,
    /// a 403 after a user switch): the key stays, and the payment asked again is still paid once.
    @Test func anAnswerThatIsNotThePaymentsOwnNeverForgetsItsKey() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try Self.app(fixture, caches: directory.url.appendingPathComponent("caches"))
            try await app.signIn()
            let before = try #require(try fixture.backend.catalog.account(id: "100")).balance
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.answerLost("/graphql")).status == 204)
            _ = try? await app.accounts.makePayment(accountId: "100", amount: 300)
            #expect(try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/graphql","status":409}]"#).status == 204)
            _ = try? await app.accounts.makePayment(accountId: "100", amount: 300)
            #expect(await app.accounts.isPaymentUnconfirmed(accountId: "100", amount: 300), "a 409 forgot the key")
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            let receipt = try await app.accounts.makePayment(accountId: "100", amount: 300)
            #expect(receipt.newBalance == before - 300, "paid twice")
        }
    }

    @Test func aPaymentRefusedByTheServerIsSettledAndAPaymentNotSentIsNeverOutcomeUnknown() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try Self.app(fixture, caches: directory.url.appendingPathComponent("caches"))
            try await app.signIn()
            await #expect(throws: AccountsError.insufficientFunds(accountId: "100")) {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 1_000_000_000)
            }
            #expect(await app.accounts.isPaymentUnconfirmed(accountId: "100", amount: 1_000_000_000) == false)
            // No server at all: nothing was sent, "connect to pay". (The first attempt may still find the
            // connection the stopped server closed, which a client cannot tell from a lost answer.)
            await fixture.backend.stop()
            _ = try? await app.accounts.makePayment(accountId: "100", amount: 5)
            await #expect(throws: AccountsError.requiresConnection) {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 5)
            }
            #expect(await app.accounts.isPaymentUnconfirmed(accountId: "100", amount: 5), "kept until an answer is known")
        }
    }

    @Test func aPurchaseWhoseAnswerWasLostIsChargedOnce() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let caches = directory.url.appendingPathComponent("caches")
            let app = try Self.app(fixture, caches: caches)
            let user = try await app.signIn()
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.answerLost("/premium")).status == 204)
            await #expect(throws: ContactsError.purchaseOutcomeUnknown) { try await app.contacts.subscribePremium() }
            #expect(try await app.contacts.hasUnconfirmedPurchase())
            #expect(try fixture.backend.catalog.premiumCharges(userId: user) == 1)
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)

            let relaunched = try Self.app(fixture, caches: caches)
            _ = await relaunched.composition.launch(offlineFirst: false)
            try await relaunched.contacts.subscribePremium()
            #expect(try fixture.backend.catalog.premiumCharges(userId: user) == 1, "the retry was charged again")
            #expect(try await relaunched.contacts.hasUnconfirmedPurchase() == false)
        }
    }

    @Test func aDeletedAccountLeavesNoKeptKey() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let support = directory.url.appendingPathComponent("support")
            let app = try Self.app(fixture, caches: directory.url.appendingPathComponent("caches"), support: support)
            try await app.signIn()
            #expect(try await fixture.send(.put, "/admin/faults", json: Self.answerLost("/")).status == 204)
            await #expect(throws: AccountsError.paymentOutcomeUnknown(accountId: "100")) {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 3)
            }
            await #expect(throws: ContactsError.purchaseOutcomeUnknown) { try await app.contacts.subscribePremium() }
            let intents = support.appendingPathComponent("intents")
            #expect(try FileManager.default.subpathsOfDirectory(atPath: intents.path).contains { $0.hasSuffix(".json") })
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            _ = await app.session.deleteAccountData()
            #expect(try FileManager.default.subpathsOfDirectory(atPath: intents.path).contains { $0.hasSuffix(".json") } == false)
        }
    }

    /// The server's half, over HTTP: a payment sent twice with one key is one payment; the key with another
    /// payment is refused and changes nothing.
    @Test func theBackendAppliesAPaymentOncePerKey() async throws {
        try await withBackend(5) { fixture in
            let token = try await fixture.token()
            func pay(_ amount: Int, key: String) async throws -> JSONValue? {
                var fields: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)"]
                fields[try #require(HTTPField.Name("Idempotency-Key"))] = key
                let query = #"mutation { makePayment(accountId: "100", amount: \#(amount)) { id } }"#
                let body = JSONValue.object(["query": .string(query)]).serialized()
                let url = fixture.backend.baseURL.appendingPathComponent("graphql")
                let response = try await fixture.transport.send(
                    TransportRequest(method: .post, url: url, headerFields: fields, body: body, timeout: TestDeadline.request))
                return try JSONValue.parse(response.body)
            }
            let before = try #require(try fixture.backend.catalog.account(id: "100")).balance
            let first = try await pay(40, key: "k1")
            let again = try await pay(40, key: "k1")
            #expect(first?["data"]?["makePayment"]?["id"] != nil)
            #expect(again?["data"]?["makePayment"]?["id"] == first?["data"]?["makePayment"]?["id"])
            let reused = try await pay(41, key: "k1")
            #expect(reused.map { "\($0)" }?.contains("IDEMPOTENCY_KEY_REUSED") == true)
            #expect(try #require(try fixture.backend.catalog.account(id: "100")).balance == before - 40)
        }
    }
}
