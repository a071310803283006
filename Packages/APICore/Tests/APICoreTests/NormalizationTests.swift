import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL

/// Parsing operations, field keys, normalization and reading back (REQ ARC-2's "Normalized Cache
/// with Custom Keys" and "Apollo Query-Based Caching").
@Suite(.timeLimit(.minutes(10))) struct NormalizationTests {
    /// Keys accounts by id, tagging them with their own id as account.
    struct AccountKeys: CacheKeyProvider {
        let typenames: Set<String> = ["Account"]
        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            guard let id = object["id"] else { return nil }
            let text =
                switch id {
                case .string(let value): value
                case .int(let value): String(value)
                default: FieldKey.canonical(id)
                }
            return NormalizedCacheKey("Account:\(text)", accountId: text)
        }
    }

    let clock = ManualClock()

    func makeCache() -> NormalizedCache {
        NormalizedCache(clock: clock) { typename in typename == "Account" ? AccountKeys() : nil }
    }

    func json(_ text: String) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            Issue.record("not an object: \(text)")
            return [:]
        }
        return object
    }

    @Test func addsTypenameEverywhereAndInlinesFragments() throws {
        let operation = try GraphQLOperation(
            """
            query Dashboard($id: ID!) { account(id: $id) { ...Money owner { name } } }
            fragment Money on Account { balance }
            """)
        #expect(operation.name == "Dashboard")
        #expect(operation.requiredVariables == ["id"])
        #expect(
            operation.document
                == "query Dashboard($id: ID!) { __typename account(id: $id) { __typename ... on Account { __typename balance } owner { __typename name } } }"
        )
    }

    @Test func syntaxErrorsAndMissingVariablesAreReportedWithPositionAndName() {
        #expect {
            try GraphQLOperation("query { account {")
        } throws: { error in
            guard case .syntax(let message, 1, 18) = error as? GraphQLOperationError else { return false }
            return message.contains("Expected Name, found <EOF>")
        }
        #expect(throws: GraphQLOperationError.unknownFragment("Nope")) { try GraphQLOperation("query { ...Nope }") }
        #expect(throws: GraphQLOperationError.missingVariable("id", operation: "Q")) {
            try GraphQLOperation("query Q($id: ID!, $n: Int) { account(id: $id) { id } }").validate(variables: ["n": .int(1)])
        }
    }

    @Test func fieldKeysSortArgumentsAtEveryDepthResolveVariablesAndIgnoreAliases() throws {
        let a = try GraphQLOperation(#"query { first: search(filter: {b: 2, a: [1, {d: "x", c: $v}]}, limit: 5) { id } }"#)
        let b = try GraphQLOperation(#"query { search(limit: 5, filter: {a: [1, {c: $v, d: "x"}], b: 2}) { id } }"#)
        func key(_ operation: GraphQLOperation) -> String? {
            for case .field(let field) in operation.selections where field.name == "search" {
                return FieldKey.make(field, variables: ["v": .bool(true)])
            }
            return nil
        }
        #expect(key(a) == #"search(filter:{a:[1,{c:true,d:"x"}],b:2},limit:5)"#)
        #expect(key(a) == key(b))
        // An absent optional variable leaves its argument out.
        let optional = try GraphQLOperation("query ($n: Int) { items(first: $n) { id } }")
        for case .field(let field) in optional.selections where field.name == "items" {
            #expect(FieldKey.make(field, variables: [:]) == "items")
        }
    }

    @Test func balanceReadByTwoQueriesIsStoredOnceAndAPaymentUpdatesBoth() throws {
        let cache = makeCache()
        let balance = try GraphQLOperation("query Balance { account(id: \"123\") { id balance } }")
        let details = try GraphQLOperation("query Details { accountDetails(id: \"123\") { id name balance } }")
        try cache.write(try json(#"{"__typename":"Query","account":{"__typename":"Account","id":"123","balance":100}}"#), for: balance)
        try cache.write(
            try json(#"{"__typename":"Query","accountDetails":{"__typename":"Account","id":"123","name":"Everyday","balance":100}}"#),
            for: details)
        #expect(try cache.store.record(forKey: "Account:123")?.fields["balance"] == .value(.int(100)))

        let payment = try GraphQLOperation(#"mutation Pay { makePayment(from: "123", amount: 30) { id balance } }"#)
        let changed = try cache.write(
            try json(#"{"__typename":"Mutation","makePayment":{"__typename":"Account","id":"123","balance":70}}"#), for: payment)
        #expect(changed.contains(FieldPath("Account:123", "balance")))
        #expect(
            try cache.read(balance).data["account"]
                == .object(["__typename": .string("Account"), "id": .string("123"), "balance": .int(70)]))
        #expect(
            try cache.read(details).data["accountDetails"].flatMap { if case .object(let o) = $0 { o["balance"] } else { nil } } == .int(70)
        )
    }

    @Test func objectsWithoutKeysLiveUnderTheirPathAndListsNestAndIdsZeroAndOneStayNumbers() throws {
        let cache = makeCache()
        let operation = try GraphQLOperation(
            """
            query { profile { name flags matrix tags { label } } account(id: 0) { id } other: account(id: 1) { id } }
            """)
        let data = try json(
            """
            {"__typename":"Query","profile":{"__typename":"Profile","name":"Ada","flags":[true,false],"matrix":[[0,1],[1,0]],
             "tags":[{"__typename":"Tag","label":"a"},{"__typename":"Tag","label":"b"}]},
             "account":{"__typename":"Account","id":0},"other":{"__typename":"Account","id":1}}
            """)
        try cache.write(data, for: operation)
        #expect(try cache.store.record(forKey: "QUERY_ROOT.profile")?.fields["name"] == .value(.string("Ada")))
        #expect(try cache.store.record(forKey: "QUERY_ROOT.profile.tags.1")?.fields["label"] == .value(.string("b")))
        #expect(try cache.store.record(forKey: "QUERY_ROOT")?.fields["account(id:0)"] == .reference("Account:0"))
        #expect(try cache.store.record(forKey: "Account:1")?.fields["id"] == .value(.int(1)))
        let read = try cache.read(operation)
        #expect(JSONValue.object(read.data) == JSONValue.object(data))
    }

    @Test func aMissingFieldIsAMissWithItsPath() throws {
        let cache = makeCache()
        try cache.write(
            try json(#"{"__typename":"Query","account":{"__typename":"Account","id":"1","balance":5}}"#),
            for: try GraphQLOperation(#"query { account(id: "1") { id balance } }"#))
        #expect(throws: CacheReadMiss.missing(path: "Account:1.name")) {
            try cache.read(try GraphQLOperation(#"query { account(id: "1") { id name } }"#))
        }
        #expect(throws: CacheReadMiss.missing(path: #"QUERY_ROOT.account(id:"2")"#)) {
            try cache.read(try GraphQLOperation(#"query { account(id: "2") { id } }"#))
        }
    }

    @Test func aCorruptRecordIsAnErrorWithItsPathThenDropped() throws {
        let cache = makeCache()
        let query = try GraphQLOperation(#"query { account(id: "1") { id owner { name } } }"#)
        try cache.write(
            try json(#"{"__typename":"Query","account":{"__typename":"Account","id":"1","owner":{"__typename":"User","name":"A"}}}"#),
            for: query)
        try cache.store.merge(["Account:1": NormalizedRecord(fields: ["owner": .value(.int(7))])])
        #expect(throws: CacheReadMiss.corrupt(path: "Account:1.owner", reason: "a scalar is stored where an object is selected")) {
            try cache.read(query)
        }
        #expect(throws: CacheReadMiss.missing(path: #"QUERY_ROOT.account(id:"1")"#)) { try cache.read(query) }
    }

    @Test func fragmentsWithTypeConditionsReadOnlyWhatApplies() throws {
        let cache = makeCache()
        let query = try GraphQLOperation(
            """
            query { node { ... on Account { id balance } ... on Card { last4 } } }
            """)
        try cache.write(try json(#"{"__typename":"Query","node":{"__typename":"Account","id":"9","balance":1}}"#), for: query)
        let read = try cache.read(query)
        #expect(read.data["node"] == .object(["__typename": .string("Account"), "id": .string("9"), "balance": .int(1)]))
        #expect(read.dependencies.contains(FieldPath("Account:9", "balance")))
    }

    @Test func clearingAnAccountIsExactAndReferencesToItBecomeMisses() throws {
        let cache = makeCache()
        let query = try GraphQLOperation("query { a: account(id: \"100\") { id } b: account(id: \"1002\") { id } }")
        try cache.write(
            try json(#"{"__typename":"Query","a":{"__typename":"Account","id":"100"},"b":{"__typename":"Account","id":"1002"}}"#),
            for: query)
        #expect(
            try cache.clear(forAccountId: "100").described
                == ["Account:100.__typename", "Account:100.id", #"QUERY_ROOT.account(id:"100")"#])
        #expect(try cache.store.record(forKey: "Account:1002") != nil)
        #expect(throws: CacheReadMiss.missing(path: #"QUERY_ROOT.account(id:"100")"#)) { try cache.read(query) }
        let onlyB = try GraphQLOperation("query { account(id: \"1002\") { id } }")
        #expect(try cache.read(onlyB).data["account"] != nil)
    }

    @Test func eachFieldRemembersWhenItWasWritten() throws {
        let cache = makeCache()
        let query = try GraphQLOperation(#"query { account(id: "1") { id balance } }"#)
        let start = clock.now()
        try cache.write(try json(#"{"__typename":"Query","account":{"__typename":"Account","id":"1","balance":5}}"#), for: query)
        clock.advance(by: 20)
        try cache.write(
            try json(#"{"__typename":"Mutation","pay":{"__typename":"Account","id":"1","balance":4}}"#),
            for: try GraphQLOperation(#"mutation { pay { id balance } }"#))
        #expect(try cache.read(query).oldestWrite == start)
    }
}
