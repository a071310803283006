import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

@testable import APICore
@testable import APICoreGraphQL

/// One suite for both record stores, then what only the SQLite store does.
@Suite(.timeLimit(.minutes(10))) struct RecordStoreTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite
        var testDescription: String { rawValue }
    }

    /// A store of this kind; the directory keeps the SQLite file alive for the test.
    func makeStore(_ kind: Kind, in directory: TemporaryDirectory) throws -> any NormalizedRecordStore {
        switch kind {
        case .memory: InMemoryRecordStore()
        case .sqlite: try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite"))
        }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ fields: [String: RecordValue], account: String? = nil) -> NormalizedRecord {
        NormalizedRecord(fields: fields, writtenAt: fields.mapValues { _ in Self.now }, accountId: account)
    }

    @Test(arguments: Kind.allCases) func mergeKeepsOtherFieldsAndReportsOnlyChanges(_ kind: Kind) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        #expect(
            try store.merge(["Account:1": record(["id": .value("1"), "balance": .value(10)], account: "1")]).described
                == ["Account:1.id", "Account:1.balance"])
        #expect(try store.merge(["Account:1": record(["balance": .value(10)])]).isEmpty)
        #expect(try store.merge(["Account:1": record(["balance": .value(0)])]).described == ["Account:1.balance"])
        let stored = try #require(try store.record(forKey: "Account:1"))
        #expect(stored.fields == ["id": .value("1"), "balance": .value(0)])
        #expect(stored.accountId == "1" && stored.writtenAt["balance"] == Self.now)
        #expect(try store.record(forKey: "Account:2") == nil)
    }

    @Test(arguments: Kind.allCases) func removingRecordsStripsTheFieldsThatReferencedThem(_ kind: Kind) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        try store.merge([
            "Account:100": record(["id": .value("100")], account: "100"),
            "Account:1002": record(["id": .value("1002")], account: "1002"),
            RootKey.query: record([
                "a": .reference("Account:100"), "b": .reference("Account:1002"),
                "all": .list([.reference("Account:100"), .reference("Account:1002")]),
            ]),
        ])
        let removed = try store.removeRecords { _, record in record.accountId == "100" }
        #expect(removed.described == ["Account:100.id", "QUERY_ROOT.a", "QUERY_ROOT.all"])
        #expect(try store.record(forKey: RootKey.query)?.fields == ["b": .reference("Account:1002")])
        #expect(try store.record(forKey: "Account:1002") != nil)
        #expect(try store.removeFields([RootKey.query: ["b", "missing"]]).described == ["QUERY_ROOT.b"])
        #expect(try store.usage().count == 2)
    }

    @Test(arguments: Kind.allCases) func describingRecordsGivesKeysSizesAccountsAndNoValues(_ kind: Kind) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        let older = NormalizedRecord(
            fields: ["id": .value("100"), "name": .value("Ada")],
            writtenAt: ["id": Self.now, "name": Self.now.addingTimeInterval(-60)], accountId: "100")
        try store.merge(["Account:100": older, "User:u1": record(["id": .value("u1")])])
        let rows = try store.describeRecords().sorted { $0.key < $1.key }
        #expect(rows.map(\.key) == ["Account:100", "User:u1"])
        #expect(rows.map(\.metadata.scope.accountId) == ["100", nil])
        #expect(rows[0].metadata.storedAt == Self.now.addingTimeInterval(-60))
        #expect(rows.allSatisfy { $0.bytes > $0.key.utf8.count && $0.metadata.expiresAt == nil })
    }

    @Test(arguments: Kind.allCases) func expiringAndRemovingEverything(_ kind: Kind) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        try store.merge(["User:1": record(["name": .value("Ada")])])
        try store.expireAll()
        #expect(try store.record(forKey: "User:1")?.writtenAt["name"] == .distantPast)
        #expect(try store.usage().bytes > 0)
        try store.removeAll()
        #expect(try store.usage() == CacheStoreUsage(count: 0, bytes: 0))
    }

    @Test(arguments: Kind.allCases) func aQueryRoundTripsThroughTheNormalizedCache(_ kind: Kind) throws {
        let directory = try TemporaryDirectory()
        let cache = NormalizedCache(store: try makeStore(kind, in: directory), clock: ManualClock()) { _ in BankKit.Keys() }
        let query = try GraphQLOperation("query { account(id: \"100\") { id balance flags nested { x } } }")
        let data: [String: JSONValue] = [
            "__typename": "Query",
            "account": [
                "__typename": "Account", "id": "100", "balance": 0, "flags": [[true, 1], []], "nested": [["__typename": "N", "x": nil]],
            ],
        ]
        try cache.write(data, for: query)
        #expect(try cache.read(query).data == data)
        try cache.clear(forAccountId: "100")
        #expect(throws: CacheReadMiss.self) { try cache.read(query) }
    }

    // MARK: SQLite only

    @Test func theSQLiteStoreSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        try SQLiteRecordStore(url: url).merge(["User:1": record(["name": .value("Ada")])])
        #expect(try SQLiteRecordStore(url: url).record(forKey: "User:1")?.fields["name"] == .value("Ada"))
    }

    @Test func theSQLiteStoreEvictsTheLeastRecentlyUsedPastItsLimit() throws {
        let directory = try TemporaryDirectory()
        let filler = JSONValue.string(String(repeating: "x", count: 400))
        let store = try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite"), byteLimit: 1_200)
        try store.merge(["A": record(["v": .value(filler)])])
        try store.merge(["B": record(["v": .value(filler)])])
        _ = try store.record(forKey: "A")
        try store.merge(["C": record(["v": .value(filler)])])
        #expect(try store.record(forKey: "B") == nil)
        #expect(try store.record(forKey: "A") != nil && store.record(forKey: "C") != nil)
        #expect(try store.usage().bytes <= 1_200)
    }

    @Test func theMemoryStoreEvictsTheLeastRecentlyUsedPastItsByteLimit() throws {
        let filler = JSONValue.string(String(repeating: "x", count: 400))
        let store = InMemoryRecordStore(limits: .init(byteLimit: 1_200))
        store.merge(["A": record(["v": .value(filler)])])
        store.merge(["B": record(["v": .value(filler)])])
        _ = store.record(forKey: "A")
        store.merge(["C": record(["v": .value(filler)])])
        #expect(store.record(forKey: "B") == nil)
        #expect(store.record(forKey: "A") != nil && store.record(forKey: "C") != nil)
        #expect(store.usage().bytes <= 1_200 && store.evictedCount == 1)
        // The byte count stays exact through field removals and clears.
        store.removeFields(["A": ["v"]])
        #expect(store.usage().bytes == store.describeRecords().reduce(0) { $0 + $1.bytes })
        store.removeAll()
        #expect(store.usage() == CacheStoreUsage(count: 0, bytes: 0))
    }

    @Test func theMemoryStoreEvictsDownTo90PercentOfItsRecordLimit() {
        let store = InMemoryRecordStore(limits: .init(recordLimit: 10))
        for index in 0..<10 { store.merge(["R:\(index)": record(["v": .value(.int(index))])]) }
        _ = store.record(forKey: "R:0")
        store.merge(["R:10": record(["v": .value(10)])])
        // 11 over a limit of 10: evicted down to 9, least recently used first (R:1 and R:2; R:0 was read).
        #expect(store.count == 9)
        #expect(store.record(forKey: "R:1") == nil && store.record(forKey: "R:2") == nil)
        #expect(store.record(forKey: "R:0") != nil && store.record(forKey: "R:10") != nil)
    }

    @Test func theSQLiteStoreMigratesAVersion1File() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        let old = try DatabaseQueue(path: url.path)
        let body = RecordCoding.encode(record(["name": .value("Ada")], account: "7"))
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE record (key TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    """)
            try db.execute(sql: "INSERT INTO record VALUES (?, ?)", arguments: ["User:1", body])
        }
        try old.close()
        let store = try SQLiteRecordStore(url: url)
        #expect(try store.record(forKey: "User:1")?.fields["name"] == .value("Ada"))
        #expect(try store.usage().bytes == "User:1".utf8.count + body.count)
        #expect(try store.removeRecords { _, record in record.accountId == "7" }.described == ["User:1.name"])
    }

    @Test func theSQLiteStoreOpensItsFileAtItsFirstUseAndAgainAfterAClearing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        let store = try SQLiteRecordStore(url: url)
        #expect(!FileManager.default.fileExists(atPath: url.path), "building the store opened no file")
        try store.merge(["User:1": record(["name": .value("Ada")])])
        #expect(FileManager.default.fileExists(atPath: url.path))
        try store.removeAll()
        #expect(!FileManager.default.fileExists(atPath: url.path), "cleared: no file until the next use")
        #expect(try store.record(forKey: "User:1") == nil)
        try store.merge(["User:2": record(["name": .value("Bob")])])
        #expect(try SQLiteRecordStore(url: url).record(forKey: "User:2")?.fields["name"] == .value("Bob"))
    }

    @Test func recordsWrittenFirstAfterAReopeningAreTheNewestInTheFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        let filler = JSONValue.string(String(repeating: "x", count: 400))
        let first = try SQLiteRecordStore(url: url, byteLimit: 1_200)
        try first.merge(["A": record(["v": .value(filler)])])
        try first.merge(["B": record(["v": .value(filler)])])
        try first.merge(["A": record(["v": .value(filler), "w": .value(.string("again"))])])
        // Opened lazily by this first merge: its record is numbered after the file's, so B, the oldest, is evicted.
        let reopened = try SQLiteRecordStore(url: url, byteLimit: 1_200)
        try reopened.merge(["C": record(["v": .value(filler)])])
        #expect(try reopened.record(forKey: "C") != nil)
        #expect(try reopened.record(forKey: "B") == nil)
        #expect(try reopened.record(forKey: "A") != nil)
    }

    @Test func aFileThatIsNotADatabaseIsReplaced() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        try Data("SQLite format 3\0 truncated".utf8).write(to: url)
        let store = try SQLiteRecordStore(url: url)
        #expect(try store.usage().count == 0)
        try store.merge(["User:1": record(["name": .value("Ada")])])
        #expect(try store.record(forKey: "User:1") != nil)
    }

    @Test func aCorruptRowIsAnErrorWithItsKeyThenDroppedByTheCache() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        // No memory front: every read is a read of the file, which this test damages behind the store's back.
        let store = try SQLiteRecordStore(url: url, frontByteLimit: 0)
        let cache = NormalizedCache(store: store, clock: ManualClock()) { _ in BankKit.Keys() }
        let query = try GraphQLOperation("query { me { id } }")
        try cache.write(["__typename": "Query", "me": ["__typename": "User", "id": "1"]], for: query)
        let raw = try DatabaseQueue(path: url.path)
        try raw.write { db in try db.execute(sql: "UPDATE record SET body = x'7B2266' WHERE key = 'User:1'") }
        try raw.close()
        #expect(throws: RecordStoreError.self) { try store.record(forKey: "User:1") }
        #expect {
            try cache.read(query)
        } throws: { error in
            guard case CacheReadMiss.corrupt(let path, _) = error else { return false }
            return path == "User:1"
        }
        #expect(try store.record(forKey: "User:1") == nil)
    }

    @Test func theMemoryFrontAnswersWhatTheFileHoldsThroughWritesRemovalsAndARelaunch() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        let store = try SQLiteRecordStore(url: url)
        try store.merge(["User:1": record(["name": .value("Ada")]), "User:2": record(["name": .value("Bob")])])
        #expect(try store.record(forKey: "User:1")?.fields["name"] == .value("Ada"))
        try store.merge(["User:1": record(["name": .value("Ada L.")])])
        #expect(try store.record(forKey: "User:1")?.fields["name"] == .value("Ada L."))
        try store.removeFields(["User:2": ["name"]])
        #expect(try store.record(forKey: "User:2")?.fields["name"] == nil)
        try store.removeRecords { key, _ in key == "User:1" }
        #expect(try store.record(forKey: "User:1") == nil)
        // What the front answered is what the file holds: a relaunch (no front yet) reads the same.
        let relaunched = try SQLiteRecordStore(url: url)
        #expect(try relaunched.record(forKey: "User:1") == nil)
        #expect(try relaunched.record(forKey: "User:2") == store.record(forKey: "User:2"))
        try store.removeAll()
        #expect(try store.record(forKey: "User:2") == nil)
        #expect(try store.usage().count == 0)
    }

    @Test func aRecordReadFromTheFileBringsItsWholeTreeIntoTheFront() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("records.sqlite")
        let transactions = (1...3).map { "Transaction:t\($0)" }
        // Two levels below the account: its transactions, then the merchant each one references.
        try SQLiteRecordStore(url: url).merge(
            [
                "Account:1": record(["transactions": .list(transactions.map(RecordValue.reference))]),
                "Merchant:m": record(["name": .value("Shop")]),
            ]
            .merging(transactions.map { ($0, record(["amount": .value(5), "merchant": .reference("Merchant:m")])) }) { $1 })
        let relaunched = try SQLiteRecordStore(url: url)
        #expect(transactions.allSatisfy { relaunched.front.peek($0) == nil })
        #expect(relaunched.front.peek("Merchant:m") == nil)
        _ = try relaunched.record(forKey: "Account:1")
        #expect(transactions.allSatisfy { relaunched.front.peek($0)?.value.fields["amount"] == .value(5) })
        #expect(relaunched.front.peek("Merchant:m")?.value.fields["name"] == .value("Shop"))
    }

    @Test func clearingLeavesNothingReadableInTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite"))
        try store.merge(["User:1": record(["email": .value("ada-secret@example.com")])])
        #expect(directory.anyFileContains("ada-secret@example.com"))
        try store.removeAll()
        #expect(!directory.anyFileContains("ada-secret@example.com"))
    }
}

extension Set<FieldPath> {
    /// The paths as `record.field` text, to compare with literals.
    var described: Set<String> { Set<String>(map(\.description)) }
}
