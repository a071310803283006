import APICoreTestServer
import BankSchema
import CacheKit
import CacheKitTesting
import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import NIOCore
import OrderedCollections

/// The bank served over GraphQL by a real Hummingbird server on 127.0.0.1, for the GraphQL client's
/// tests: the reference backend's own schema (`BankSchema`, one definition for both) over data in memory,
/// with failures and a gate on demand, and every operation recorded.
final class BankServer: Sendable {
    struct Account: Codable, Sendable {
        var id: String
        var name: String
        var balance: Int
    }

    struct Transaction: Codable, Sendable {
        var id: String
        var accountId: String
        var amount: Int
    }

    struct State: Sendable {
        var accounts: [String: Account] = [
            "100": Account(id: "100", name: "Checking", balance: 1_000),
            "1002": Account(id: "1002", name: "Savings", balance: 5_000),
        ]
        var transactions: [Transaction] = [Transaction(id: "t1", accountId: "100", amount: -20)]
        var operations: [String] = []
        /// Each idempotency key's payment: its fingerprint and transaction.
        var payments: [String: (fingerprint: String, transactionId: String)] = [:]
        /// When set, every request answers with this status and no GraphQL body.
        var failWith: Int?
        /// When set, every request waits for it before resolving.
        var gate: AsyncGate?
    }

    let state = Locked(State())
    private let server: TestServer

    var endpoint: URL { server.baseURL.appendingPathComponent("graphql") }

    private init(server: TestServer) {
        self.server = server
    }

    /// How many requests named this operation.
    func count(_ operation: String) -> Int { state.withLock { $0.operations.filter { $0 == operation }.count } }

    /// Every request's operation name, in order.
    var operations: [String] { state.withLock { $0.operations } }

    func setBalance(_ balance: Int, of account: String) {
        state.withLock { $0.accounts[account]?.balance = balance }
    }

    static func start() async throws -> BankServer {
        let holder = Holder()
        let server = try await TestServer.start { router in
            router.post("graphql") { request, context in
                try await holder.bank().handle(request, context: context)
            }
        }
        let bank = BankServer(server: server)
        holder.set(bank)
        return bank
    }

    func stop() async { await server.stop() }

    private final class Holder: Sendable {
        private let value = Locked<BankServer?>(nil)
        func set(_ bank: BankServer) { value.withLock { $0 = bank } }
        func bank() throws -> BankServer {
            guard let bank = value.withLock({ $0 }) else { throw HTTPError(.serviceUnavailable) }
            return bank
        }
    }

    private struct Body: Decodable {
        var query: String
        var operationName: String?
        var variables: [String: Map]?
    }

    private func handle(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await request.decode(as: Body.self, context: context)
        let (failure, gate) = state.withLock { state in
            state.operations.append(body.operationName ?? "anonymous")
            return (state.failWith, state.gate)
        }
        if let gate { await gate.wait() }
        if let failure {
            return reply(HTTPResponse.Status(code: failure), #"{"message":"failure on demand"}"#)
        }
        let result = try await BankSchema.execute(
            body.query, schema: schema, variables: body.variables ?? [:], operationName: body.operationName, userId: "u1",
            idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!])
        let data = try GraphQLJSONEncoder().encode(result)
        return reply(.ok, String(decoding: data, as: UTF8.self))
    }

    private var schema: GraphQLSchema {
        get throws { try BankSchema.make(InMemoryBank(server: self)) }
    }
}

/// The bank's data in memory, for the shared schema: everything belongs to `u1`.
private struct InMemoryBank: BankData {
    let server: BankServer

    func user(id: String) throws -> BankUserObject? {
        BankUserObject(id: "u1", name: "Ada", email: "ada@example.com")
    }

    func accounts(userId: String) throws -> [BankAccountObject] {
        server.state.withLock { $0.accounts.values.sorted { $0.id < $1.id }.map(Self.object) }
    }

    func account(id: String) throws -> (account: BankAccountObject, ownerId: String)? {
        server.state.withLock { $0.accounts[id].map { (Self.object($0), "u1") } }
    }

    func transaction(id: String) throws -> BankTransactionObject? {
        server.state.withLock { $0.transactions.first { $0.id == id }.map(Self.object) }
    }

    func transactions(accountId: String, after: String?, limit: Int) throws -> (items: [BankTransactionObject], hasMore: Bool) {
        server.state.withLock { state in
            var items = state.transactions.filter { $0.accountId == accountId }.reversed().map(Self.object)
            if let after, let index = items.firstIndex(where: { $0.id == after }) { items = Array(items[(index + 1)...]) }
            return (Array(items.prefix(limit)), items.count > limit)
        }
    }

    func recentTransactions(accountIds: [String], limit: Int) throws -> [BankTransactionObject] {
        server.state.withLock { state in
            Array(state.transactions.filter { accountIds.contains($0.accountId) }.reversed().prefix(limit).map(Self.object))
        }
    }

    func pay(accountId: String, amount: Int, description: String, key: BankPaymentKey?) throws -> BankPaymentOutcome {
        server.state.withLock { state in
            if let key, let first = state.payments[key.key] {
                guard first.fingerprint == key.fingerprint, let account = state.accounts[accountId],
                    let transaction = state.transactions.first(where: { $0.id == first.transactionId })
                else { return .keyReused }
                return .paid(Self.object(account), Self.object(transaction))
            }
            guard var account = state.accounts[accountId], account.balance >= amount else { return .insufficientFunds }
            account.balance -= amount
            state.accounts[accountId] = account
            let transaction = BankServer.Transaction(id: "t\(state.transactions.count + 1)", accountId: accountId, amount: -amount)
            state.transactions.append(transaction)
            if let key { state.payments[key.key] = (key.fingerprint, transaction.id) }
            return .paid(Self.object(account), Self.object(transaction))
        }
    }

    static func object(_ account: BankServer.Account) -> BankAccountObject {
        BankAccountObject(id: account.id, name: account.name, balance: account.balance, currency: "EUR")
    }

    static func object(_ transaction: BankServer.Transaction) -> BankTransactionObject {
        BankTransactionObject(
            id: transaction.id, accountId: transaction.accountId, amount: transaction.amount, description: "Payment",
            date: "2026-01-15T12:00:00Z")
    }
}

/// Runs `body` against a fresh bank, and stops it afterwards.
func withBank(_ body: (BankServer) async throws -> Void) async throws {
    let bank = try await BankServer.start()
    do {
        try await body(bank)
    } catch {
        await bank.stop()
        throw error
    }
    await bank.stop()
}
