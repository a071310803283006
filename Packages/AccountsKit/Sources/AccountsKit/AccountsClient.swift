import APICore
import APICoreGraphQL
import APICoreREST
import CacheKit
import Foundation
import Logging

/// The accounts use cases (REQ ARC-7), over the app's GraphQL client
/// and its normalized store.
///
/// Every read takes an optional `CachePolicy`; `nil` means cache first
/// (`CachePolicy/returnCacheDataElseFetch`). Use `CachePolicy/fetchIgnoringCacheData` for
/// pull-to-refresh. Timeouts: balance 30 s, transactions 5 min, profile 15 min, the rest the kit's
/// default of 5 min; the settings file overrides each by feature (``AccountsFeature``).
///
/// ```swift
/// let accounts = try container.resolver(for: "app").resolve(AccountsClient.self)
/// let balance = try await accounts.balance(accountId: "100").value.amount
/// let receipt = try await accounts.makePayment(accountId: "100", amount: 1_250)   // balance updated everywhere
/// ```
public final class AccountsClient: Sendable {
    /// The GraphQL client the use cases go through.
    public let graphQL: GraphQLClient
    /// Each payment's idempotency key, kept (under the data directory's `intents/accounts`) until its outcome
    /// is known.
    let intents: IntentKeys

    /// Creates the use cases over the app's GraphQL client (whose container holds the kit's keys and rules).
    public init(graphQL: GraphQLClient) {
        self.graphQL = graphQL
        intents = IntentKeys(
            directory: graphQL.configuration.environment.dataDirectory.appendingPathComponent("intents/accounts", isDirectory: true))
    }

    /// Account deletion: the user's kept payment keys go (`nil`: every user's).
    /// - Throws: when a file cannot be removed.
    public func erase(userId: String?) throws {
        try intents.erase(userId: userId)
    }

    /// An account's balance (30 s).
    /// - Parameters:
    ///   - accountId: the account.
    ///   - policy: the cache policy; `nil` for cache first.
    /// - Throws: ``AccountsError/unknownAccount(_:)``, ``AccountsError/api(_:)``.
    public func balance(accountId: String, policy: CachePolicy? = nil) async throws(AccountsError) -> Loaded<AccountBalance> {
        let loaded = try await account(
            AccountBalanceQuery(accountId: accountId), accountId: accountId, policy: policy,
            as: BalanceFields.self)
        return Loaded(
            value: AccountBalance(accountId: loaded.value.id, amount: loaded.value.balance, currency: loaded.value.currency),
            source: loaded.source, status: loaded.status)
    }

    /// An account's details (5 min).
    /// - Throws: as ``balance(accountId:policy:)``.
    public func account(id: String, policy: CachePolicy? = nil) async throws(AccountsError) -> Loaded<Account> {
        try await account(AccountDetailsQuery(accountId: id), accountId: id, policy: policy, as: Account.self)
    }

    /// An account's latest transactions, newest first (5 min).
    /// - Throws: as ``balance(accountId:policy:)``.
    public func recentTransactions(accountId: String, count: Int = 10, policy: CachePolicy? = nil) async throws(AccountsError)
        -> Loaded<[Transaction]>
    {
        let loaded = try await account(
            RecentTransactionsQuery(accountId: accountId, count: count), accountId: accountId,
            policy: policy, as: RecentFields.self)
        return Loaded(value: loaded.value.recentTransactions, source: loaded.source, status: loaded.status)
    }

    /// One page of an account's transactions, newest first (5 min).
    /// - Parameters:
    ///   - accountId: the account whose transactions are listed.
    ///   - first: page size, 1 to 100.
    ///   - after: the previous page's ``TransactionPage/nextCursor``.
    ///   - policy: how the cache is used; `nil` means cache first with the kit's timeout.
    /// - Throws: as ``balance(accountId:policy:)``; a refused cursor is ``AccountsError/api(_:)`` with
    ///   server code `INVALID_CURSOR`.
    public func transactions(accountId: String, first: Int = 20, after: String? = nil, policy: CachePolicy? = nil)
        async throws(AccountsError) -> Loaded<TransactionPage>
    {
        let loaded = try await account(
            AllTransactionsQuery(accountId: accountId, first: first, after: after),
            accountId: accountId, policy: policy, as: PageFields.self)
        return Loaded(value: loaded.value.transactions, source: loaded.source, status: loaded.status)
    }

    /// Every transaction of an account, page after page, each once.
    /// - Throws: as ``transactions(accountId:first:after:policy:)``.
    public func allTransactions(accountId: String, pageSize: Int = 20, policy: CachePolicy? = nil) async throws(AccountsError)
        -> [Transaction]
    {
        var all: [Transaction] = []
        var seen: Set<String> = []
        var cursor: String?
        repeat {
            let page = try await transactions(accountId: accountId, first: pageSize, after: cursor, policy: policy).value
            all += page.items.filter { seen.insert($0.id).inserted }
            cursor = page.hasMore ? page.nextCursor : nil
        } while cursor != nil
        return all
    }

    /// The dashboard (5 min). Its accounts share `Account:<id>` with every other query, so a payment's
    /// new balance shows here at once; the server's total follows with the background refetch.
    /// - Throws: ``AccountsError/api(_:)``.
    public func dashboard(policy: CachePolicy? = nil) async throws(AccountsError) -> Loaded<Dashboard> {
        try await load(DashboardQuery(), as: DashboardFields.self, policy: policy, accountId: nil).map(\.dashboard)
    }

    /// The signed-in user's profile (15 min).
    /// - Throws: ``AccountsError/api(_:)``.
    public func profile(policy: CachePolicy? = nil) async throws(AccountsError) -> Loaded<UserProfile> {
        try await load(UserProfileQuery(), as: ProfileFields.self, policy: policy, accountId: nil).map(\.me)
    }

    /// Checks, against the server and never the cache, that an account can pay `amount`.
    /// - Throws: ``AccountsError/invalidAmount(_:)`` before any request, or as ``balance(accountId:policy:)``.
    public func checkFunds(accountId: String, amount: Int) async throws(AccountsError) -> FundsCheck {
        guard amount > 0 else { throw .invalidAmount(amount) }
        let balance = try await balance(accountId: accountId, policy: .fetchIgnoringCacheData)
        return FundsCheck(accountId: accountId, available: balance.value.amount, requested: amount)
    }

    /// Pays `amount` cents from an account, once. The result updates `Account:<id>` in the normalized store,
    /// so every screen sees the new balance at once; then the kit's refetch rule runs: the balance and
    /// recent transactions before this returns, the dashboard and the full transaction list after.
    /// A failed payment leaves the cache as it was.
    ///
    /// The payment carries an idempotency key kept on disk until the server's answer is known: the same
    /// payment (account, amount and description) asked again after ``AccountsError/paymentOutcomeUnknown(accountId:)``,
    /// also after a relaunch, sends the same key, and the server answers with its first outcome.
    /// - Throws: ``AccountsError/invalidAmount(_:)`` before any request, ``AccountsError/insufficientFunds(accountId:)``,
    ///   ``AccountsError/unknownAccount(_:)``, ``AccountsError/requiresConnection`` (no server reached),
    ///   ``AccountsError/paymentOutcomeUnknown(accountId:)``, ``AccountsError/api(_:)`` (with `APIError.sessionChanged`
    ///   when the account was deleted or another user signed in before the payment was sent).
    public func makePayment(accountId: String, amount: Int, description: String? = nil) async throws(AccountsError)
        -> PaymentReceipt
    {
        guard amount > 0 else { throw .invalidAmount(amount) }
        // Signed out (or a client with no session), the key is kept under no user: the server refuses the
        // payment anyway.
        let signedIn: @Sendable () async -> String = { [graphQL] in
            await graphQL.configuration.tokenProvider?.currentCredentials()?.userId ?? ""
        }
        let user = await signedIn()
        let intent = Self.paymentIntent(accountId: accountId, amount: amount, description: description)
        let kept: String?
        do {
            kept = try await intents.key(for: intent, user: user, signedIn: signedIn)
        } catch {
            throw .api(.invalidRequest(reason: "the payment's key could not be kept: \(error)"))
        }
        // The account was deleted, or another user signed in, since the user was read: nothing sent, no key left.
        guard let key = kept else { throw .api(.sessionChanged) }
        let result: MutationResult
        do {
            result = try await graphQL.perform(
                MakePaymentMutation(accountId: accountId, amount: amount, description: description), idempotencyKey: key,
                owner: user.isEmpty ? nil : user)
        } catch {
            // The key is forgotten only when the server said the payment was made or refused it for a reason of
            // its own. Any other answer may follow an attempt the server took (the client retries with the same
            // key): a 401, a 403 after a user switch, a 5xx, a timeout. The key stays; asking again never pays twice.
            if Self.settles(error) { settle(intent, key: key, user: user) }
            // Another user signed in before it was sent: nothing left, and it is not the new user's to pay.
            if case .sessionChanged = error { throw .api(error) }
            // No connection made on the last attempt (the client's `requiresConnection` for a payment).
            if case .requiresConnection = error { throw .requiresConnection }
            guard error.isFinalAnswer else {
                throw error.isOffline ? .requiresConnection : .paymentOutcomeUnknown(accountId: accountId)
            }
            if case .graphQL(let errors) = error, errors.errors.first?.code == "INVALID_AMOUNT" { throw .invalidAmount(amount) }
            throw AccountsError(error, accountId: accountId)
        }
        settle(intent, key: key, user: user)
        let payment = try decode(
            GraphQLResult(data: result.data, source: .network, freshness: .fetched(at: .now)),
            as: PaymentFields.self, feature: MakePaymentMutation.feature
        ).value.makePayment
        return PaymentReceipt(
            transaction: payment.transaction, newBalance: payment.account.balance,
            critical: result.critical, background: result.background)
    }

    /// Whether this payment was sent and its outcome is not known yet: a screen can show "Checking your
    /// payment" and ask again with ``makePayment(accountId:amount:description:)``, which never pays twice.
    public func isPaymentUnconfirmed(accountId: String, amount: Int, description: String? = nil) async -> Bool {
        let user = await graphQL.configuration.tokenProvider?.currentCredentials()?.userId ?? ""
        return intents.isUnresolved(Self.paymentIntent(accountId: accountId, amount: amount, description: description), user: user)
    }

    /// The server's own refusals of a payment: it made none.
    static let refusals: Set<String> = ["INSUFFICIENT_FUNDS", "INVALID_AMOUNT", "UNKNOWN_ACCOUNT"]

    /// Whether `error` settles a payment's outcome: the server refused it for a reason of its own, or answered
    /// with the payment's data beside an error (it was made).
    static func settles(_ error: APIError) -> Bool {
        guard case .graphQL(let errors) = error else { return false }
        if let paid = errors.data?["makePayment"], paid != .null { return true }
        return errors.errors.allSatisfy { $0.code.map(refusals.contains) ?? false }
    }

    static func paymentIntent(accountId: String, amount: Int, description: String?) -> String {
        String(
            decoding: JSONValue.array([.string("payment"), .string(accountId), .int(amount), description.map(JSONValue.string) ?? .null])
                .serialized(), as: UTF8.self)
    }

    /// The answer is known: the next such payment is a new one. A key that cannot be forgotten only makes that
    /// next payment replay this one's answer (the server refuses nothing twice), so the failure is logged.
    private func settle(_ intent: String, key: String, user: String) {
        do {
            try intents.settle(intent, key: key, user: user)
        } catch {
            graphQL.configuration.environment.logger.warning(
                "Could not forget a settled payment key", metadata: ["error": "\(error)"])
        }
    }

    /// Removes what the normalized store holds for one account (account switch); other accounts stay.
    /// - Throws: the store's error when it could not be written.
    public func clear(accountId: String) async throws {
        try await graphQL.clear(forAccountId: accountId)
    }

    // MARK: Steps

    /// The query decoded into the kit's fields (a fresh cache hit straight from the normalized records), with
    /// the label its feature's ``StaleIndicator`` gives it.
    private func load<Q: GraphQLQuery, T: Decodable & Sendable>(
        _ query: Q, as type: T.Type, policy: CachePolicy?, accountId: String?
    ) async throws(AccountsError) -> Loaded<T> {
        let loaded: GraphQLValue<T>
        do {
            loaded = try await graphQL.fetch(query, as: T.self, policy: policy ?? .returnCacheDataElseFetch)
        } catch {
            throw AccountsError(error, accountId: accountId)
        }
        return labelled(loaded.value, source: loaded.source, freshness: loaded.freshness, feature: Q.feature)
    }

    private func account<Q: GraphQLQuery, Fields: Decodable & Sendable>(
        _ query: Q, accountId: String, policy: CachePolicy?, as type: Fields.Type
    ) async throws(AccountsError) -> Loaded<Fields> {
        let loaded = try await load(query, as: AccountEnvelope<Fields>.self, policy: policy, accountId: accountId)
        guard let account = loaded.value.account else { throw .unknownAccount(accountId) }
        return loaded.map { _ in account }
    }

    /// The result decoded, with the label its feature's ``StaleIndicator`` gives it.
    private func decode<T: Decodable & Sendable>(_ result: GraphQLResult, as type: T.Type, feature: String)
        throws(AccountsError) -> Loaded<T>
    {
        do throws(APIError) {
            return labelled(try result.decode(T.self), source: result.source, freshness: result.freshness, feature: feature)
        } catch {
            throw .api(error)
        }
    }

    /// `value` with the label its feature's ``StaleIndicator`` gives data of this freshness.
    private func labelled<T: Sendable>(_ value: T, source: ResponseSource, freshness: Freshness, feature: String) -> Loaded<T> {
        let indicator = graphQL.configuration.container?.staleIndicator(forFeature: feature) ?? .none
        return Loaded(value: value, source: source, status: DataStatus(freshness, indicator: indicator))
    }
}

// The operations' data shapes.
private struct AccountEnvelope<Fields: Decodable & Sendable>: Decodable, Sendable { var account: Fields? }
private struct BalanceFields: Decodable, Sendable {
    var id: String
    var balance: Int
    var currency: String
}
private struct RecentFields: Decodable, Sendable { var recentTransactions: [Transaction] }
private struct PageFields: Decodable, Sendable { var transactions: TransactionPage }
private struct DashboardFields: Decodable, Sendable { var dashboard: Dashboard }
private struct ProfileFields: Decodable, Sendable { var me: UserProfile }
private struct PaymentFields: Decodable, Sendable {
    struct Payment: Decodable, Sendable {
        struct PaidAccount: Decodable, Sendable {
            var id: String
            var balance: Int
        }
        var account: PaidAccount
        var transaction: Transaction
    }
    var makePayment: Payment
}

extension Loaded {
    /// The same load with its value transformed.
    func map<T>(_ transform: (Value) -> T) -> Loaded<T> {
        Loaded<T>(value: transform(value), source: source, status: status)
    }
}
