import APICore
import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICoreGraphQL

/// `SQLiteRecordStore.prepare()`, which an app's launch calls beside its other work: it opens a file that exists,
/// so the first read finds it open, and creates nothing, so a clearing before it or beside it leaves no file behind.
@Suite(.timeLimit(.minutes(10))) struct RecordStorePrepareTests {
    static let record = NormalizedRecord(
        fields: ["name": .value("Ada")], writtenAt: ["name": Date(timeIntervalSince1970: 1_800_000_000)], accountId: "100")

    func isOpen(_ store: SQLiteRecordStore) -> Bool { store.connection.withLock { $0 != nil } }

    @Test func anExistingFileIsOpenedAndReadAfter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("records.sqlite")
        try SQLiteRecordStore(url: url).merge(["User:1": Self.record])
        let relaunched = try SQLiteRecordStore(url: url)
        #expect(!isOpen(relaunched))
        relaunched.prepare()
        #expect(isOpen(relaunched))
        #expect(try relaunched.record(forKey: "User:1")?.fields["name"] == .value("Ada"))
    }

    @Test func withNoFileNothingIsOpenedOrCreated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteRecordStore(url: directory.url.appendingPathComponent("records.sqlite"))
        store.prepare()
        #expect(!isOpen(store))
        #expect(directory.files().isEmpty)
    }

    /// In random orders: the opening on another thread, the clearing before it or beside it.
    @Test func aClearingBeforeOrBesideTheOpeningLeavesNoFile() async throws {
        var random = SeededRandom(seed: 63)
        for round in 0..<40 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let url = directory.url.appendingPathComponent("records.sqlite")
            try SQLiteRecordStore(url: url).merge(["User:\(round)": Self.record])
            let relaunched = try SQLiteRecordStore(url: url)
            let clearsFirst = Bool.random(using: &random)
            async let opening: Void = Task.detached { relaunched.prepare() }.value
            if clearsFirst { try relaunched.removeAll() }
            await opening
            if !clearsFirst { try relaunched.removeAll() }
            relaunched.prepare()
            #expect(directory.files().isEmpty, "round \(round): \(directory.files())")
            #expect(try relaunched.record(forKey: "User:\(round)") == nil)
        }
    }
}
