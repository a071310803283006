import APICoreTestServer
import CacheKit
import CacheKitTesting
import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import NIOCore
import OrderedCollections

/// A small bank served over GraphQL (GraphQLSwift) by a real Hummingbird server on 127.0.0.1, for
/// the GraphQL client's tests: accounts with balances and transactions, a dashboard without an id,
/// a user profile, and a `makePayment` mutation that can fail.
///
/// ```graphql
/// type Query { account(id: ID!): Account  accounts: [Account!]!  dashboard: Dashboard!  me: User!  broken: String }
/// type Account { id: ID!  name: String!  balance: Int!  transactions: [Transaction!]! }
/// type Transaction { id: ID!  amount: Int! }
/// type Dashboard { totalBalance: Int!  accounts: [Account!]! }
/// type User { id: ID!  name: String! }
/// type Mutation { makePayment(accountId: ID!, amount: Int!): Payment! }
/// type Payment { account: Account!  transaction: Transaction! }
/// ```
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

    struct Dashboard: Codable, Sendable {
        var totalBalance: Int
        var accounts: [Account]
    }

    struct User: Codable, Sendable {
        var id: String
        var name: String
    }

    struct Payment: Codable, Sendable {
        var account: Account
        var transaction: Transaction
    }

    struct State: Sendable {
        var accounts: [String: Account] = [
            "100": Account(id: "100", name: "Checking", balance: 1_000),
            "1002": Account(id: "1002", name: "Savings", balance: 5_000),
        ]
        var transactions: [Transaction] = [Transaction(id: "t1", accountId: "100", amount: -20)]
        var operations: [String] = []
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
        let result = try await graphql(
            schema: schema, request: body.query, variableValues: body.variables ?? [:],
            operationName: body.operationName)
        let data = try GraphQLJSONEncoder().encode(result)
        return reply(.ok, String(decoding: data, as: UTF8.self))
    }

    private var schema: GraphQLSchema {
        get throws {
            let transaction = try GraphQLObjectType(
                name: "Transaction",
                fields: [
                    "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                    "amount": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                ])
            let account = try GraphQLObjectType(
                name: "Account",
                fields: [
                    "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                    "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                    "balance": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                    "transactions": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(transaction)))) { source, _, _, _ in
                        guard let account = source as? Account else { return [Transaction]() }
                        return self.state.withLock { $0.transactions.filter { $0.accountId == account.id } }
                    },
                ])
            let dashboard = try GraphQLObjectType(
                name: "Dashboard",
                fields: [
                    "totalBalance": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                    "accounts": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(account)))),
                ])
            let user = try GraphQLObjectType(
                name: "User",
                fields: [
                    "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                    "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                ])
            let payment = try GraphQLObjectType(
                name: "Payment",
                fields: [
                    "account": GraphQLField(type: GraphQLNonNull(account)),
                    "transaction": GraphQLField(type: GraphQLNonNull(transaction)),
                ])
            let query = try GraphQLObjectType(
                name: "Query",
                fields: [
                    "account": GraphQLField(type: account, args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID))]) {
                        _, args, _, _ in
                        let id = args["id"].string ?? ""
                        return self.state.withLock { $0.accounts[id] }
                    },
                    "accounts": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(account)))) { _, _, _, _ in
                        self.state.withLock { $0.accounts.values.sorted { $0.id < $1.id } }
                    },
                    "dashboard": GraphQLField(type: GraphQLNonNull(dashboard)) { _, _, _, _ in
                        self.state.withLock { state in
                            let accounts = state.accounts.values.sorted { $0.id < $1.id }
                            return Dashboard(totalBalance: accounts.reduce(0) { $0 + $1.balance }, accounts: accounts)
                        }
                    },
                    "me": GraphQLField(type: GraphQLNonNull(user)) { _, _, _, _ in User(id: "u1", name: "Ada") },
                    "broken": GraphQLField(type: GraphQLString) { _, _, _, info in
                        throw GraphQLError(message: "broken on purpose", path: info.path, extensions: ["code": "BROKEN"])
                    },
                ])
            let mutation = try GraphQLObjectType(
                name: "Mutation",
                fields: [
                    "makePayment": GraphQLField(
                        type: GraphQLNonNull(payment),
                        args: [
                            "accountId": GraphQLArgument(type: GraphQLNonNull(GraphQLID)),
                            "amount": GraphQLArgument(type: GraphQLNonNull(GraphQLInt)),
                        ]
                    ) { _, args, _, info in
                        let id = args["accountId"].string ?? ""
                        let amount = args["amount"].int ?? 0
                        return try self.state.withLock { state in
                            guard var account = state.accounts[id] else {
                                throw GraphQLError(message: "no account \(id)", path: info.path, extensions: ["code": "UNKNOWN_ACCOUNT"])
                            }
                            guard account.balance >= amount else {
                                throw GraphQLError(
                                    message: "insufficient funds", path: info.path, extensions: ["code": "INSUFFICIENT_FUNDS"])
                            }
                            account.balance -= amount
                            state.accounts[id] = account
                            let transaction = Transaction(id: "t\(state.transactions.count + 1)", accountId: id, amount: -amount)
                            state.transactions.append(transaction)
                            return Payment(account: account, transaction: transaction)
                        }
                    }
                ])
            return try GraphQLSchema(query: query, mutation: mutation)
        }
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
