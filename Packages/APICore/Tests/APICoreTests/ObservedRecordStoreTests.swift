import APICore
import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICoreGraphQL

/// The GraphQL client's records tell its environment's store-change observer of every change, before it is
/// written, and of none of their reads.
@Suite(.timeLimit(.minutes(10))) struct ObservedRecordStoreTests {
    @Test(arguments: ["merge", "remove records", "remove fields", "expire all", "remove all", "trim"])
    func everyChangeIsToldBeforeItIsWritten(_ change: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let base = try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite"))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let old = NormalizedRecord(fields: ["balance": .value(10)], writtenAt: ["balance": now], accountId: "1")
        try base.merge(["Account:1": old])
        let observer = RecordsObserver(base: base)
        let store = ObservedRecordStore.wrapping(base, changes: observer)
        switch change {
        case "merge": try store.merge(["Account:1": NormalizedRecord(fields: ["balance": .value(0)], writtenAt: ["balance": now])])
        case "remove records": try store.removeRecords { key, _ in key == "Account:1" }
        case "remove fields": try store.removeFields(["Account:1": ["balance"]])
        case "expire all": try store.expireAll()
        case "remove all": try store.removeAll()
        default: try store.trim(toBytes: 0)
        }
        #expect(observer.events == ["will: balance 10", "did"], "\(change): \(observer.events)")
        _ = try store.record(forKey: "Account:1")
        _ = try store.usage()
        _ = try store.describeRecords()
        #expect(observer.events == ["will: balance 10", "did"], "reads are no changes")
        #expect(ObservedRecordStore.wrapping(base, changes: nil) is SQLiteRecordStore, "no observer: the store itself")
    }
}

/// Records each change it is told of, with the balance the store held when the change was announced.
private final class RecordsObserver: StoreChangeObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    let base: SQLiteRecordStore

    init(base: SQLiteRecordStore) { self.base = base }

    var events: [String] { lock.withLock { recorded } }

    func storeWillChange() {
        let field = (try? base.record(forKey: "Account:1"))?.fields["balance"]
        let balance = field == .value(10) ? "10" : field.map { "\($0)" } ?? "none"
        lock.withLock { recorded.append("will: balance \(balance)") }
    }

    func storeDidChange() { lock.withLock { recorded.append("did") } }
}
