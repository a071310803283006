import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Logging
import Testing

/// What only a persistent store must do: survive restarts, damage and removal.
@Suite("DiskStore", .timeLimit(.minutes(10)))
struct DiskStoreTests {
    @Test("a new store on the same folder sees the entries, their scope and expiry")
    func survivesRestart() throws {
        let fixture = try StoreFixture(.disk)
        try fixture.put("profile", "alice's profile", expiresIn: 60, scope: .user("alice", account: "7", tags: ["x"]))
        let reopened = fixture.reopened()
        let entry = try #require(try reopened.get("profile", requester: "alice"))
        #expect(String(decoding: entry.value, as: UTF8.self) == "alice's profile")
        #expect(entry.metadata.scope == .user("alice", account: "7", tags: ["x"]))
        #expect(try reopened.usage() == fixture.store.usage())
        fixture.clock.advance(by: 61)
        #expect(try reopened.get("profile", requester: "alice") == nil)
    }

    @Test("LRU order survives a restart")
    func lruSurvivesRestart() throws {
        let fixture = try StoreFixture(.disk, byteLimit: 30)
        try fixture.put("a", "aaaaaaaaa")
        try fixture.put("b", "bbbbbbbbb")
        try fixture.put("c", "ccccccccc")
        _ = try fixture.text("a")
        try fixture.put("c", "ccccccccc")  // a write carries the read of a to disk
        let reopened = fixture.reopened()
        try reopened.set(Data("ddddddddd".utf8), forKey: "d", metadata: fixture.metadata())
        #expect(try reopened.get("b", requester: nil) == nil)
        #expect(try reopened.get("a", requester: nil) != nil)
    }

    @Test("a hit recorded after a peek counts as a get's does and keeps the entry recently used, without a second read")
    func hitRecordedAfterPeek() throws {
        let fixture = try StoreFixture(.disk, byteLimit: 30)
        let store = try #require(fixture.store as? DiskStore)
        try fixture.put("a", "aaaaaaaaa")
        try fixture.put("b", "bbbbbbbbb")
        try fixture.put("c", "ccccccccc")
        #expect(store.peek("a") != nil)
        let hits = fixture.metrics.snapshot().hits
        store.recordHit("a")
        #expect(fixture.metrics.snapshot().hits == hits + 1)
        try store.set(Data("ddddddddd".utf8), forKey: "d", metadata: fixture.metadata())
        #expect(store.peek("b") == nil, "b, not read since, is the one evicted")
        #expect(store.peek("a") != nil)
    }

    @Test("a truncated database file never yields wrong data or a crash: it is discarded whole, and the store works again")
    func truncatedFile() throws {
        let fixture = try StoreFixture(.disk)
        func value(_ index: Int) -> String { String(repeating: "v\(index)-", count: 60) }
        do {
            // A store that writes 200 entries and closes: its log is folded into the database file.
            let writer = fixture.reopened()
            for index in 0..<200 { try writer.set(Data(value(index).utf8), forKey: "k\(index)", metadata: fixture.metadata()) }
        }
        // The positive control: whole, the file gives back every entry as written.
        let intact = fixture.reopened()
        for index in 0..<200 { #expect(try intact.get("k\(index)", requester: nil)?.value == Data(value(index).utf8)) }
        let url = fixture.directory.url.appendingPathComponent("cache.sqlite")
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count * 2 / 3).write(to: url)
        for path in [url.path + "-wal", url.path + "-shm"] { try? FileManager.default.removeItem(atPath: path) }
        let reopened = fixture.reopened()
        var read = 0
        for index in 0..<200 {
            if let entry = try reopened.get("k\(index)", requester: nil) {
                read += 1
                #expect(entry.value == Data(value(index).utf8), "a damaged file must never return altered bytes")
            }
        }
        // Opening reads the whole table, meets the cut, and discards the file: nothing of it is trusted.
        #expect(read == 0, "\(read) entries read from a truncated file")
        try reopened.set(Data("fresh".utf8), forKey: "new", metadata: fixture.metadata())
        #expect(try reopened.get("new", requester: nil).map { String(decoding: $0.value, as: UTF8.self) } == "fresh")
    }

    @Test("a garbage database file is discarded: a miss, then the store works again")
    func garbageFile() throws {
        let fixture = try StoreFixture(.disk)
        try fixture.put("a", "alpha")
        let url = try #require(fixture.directory.files().first { $0.lastPathComponent == "cache.sqlite" })
        for path in [url.path + "-wal", url.path + "-shm"] { try? FileManager.default.removeItem(atPath: path) }
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: url)
        let reopened = fixture.reopened()
        #expect(try reopened.get("a", requester: nil) == nil)
        try reopened.set(Data("beta".utf8), forKey: "b", metadata: fixture.metadata())
        #expect(try reopened.get("b", requester: nil) != nil)
    }

    @Test("a value whose bytes changed on disk fails its checksum and is dropped")
    func corruptEntry() throws {
        let fixture = try StoreFixture(.disk)
        try fixture.put("a", "alpha")
        try fixture.put("b", "beta")
        let url = fixture.directory.url.appendingPathComponent("cache.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE entry SET value = X'DEADBEEF' WHERE key = 'a'") }
        try queue.close()
        #expect(try fixture.text("a") == nil)
        #expect(try fixture.store.peek("a", requester: nil) == nil, "the corrupt entry is gone")
        #expect(try fixture.text("b") == "beta")
    }

    @Test("a corrupt entry is dropped with a log line that names its key redacted, never raw")
    func corruptEntryIsLoggedRedacted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logs = LogRecorder()
        let store = DiskStore(configuration: .init(directory: directory.url), clock: ManualClock(), logger: logs.logger())
        let key = "profile:alice@example.com"
        try store.set(
            Data("alpha".utf8), forKey: key,
            metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil, scope: .user("user-42")))
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("cache.sqlite").path)
        try queue.write { try $0.execute(sql: "UPDATE entry SET value = X'DEADBEEF'") }
        try queue.close()
        #expect(store.get(key, requester: "user-42") == nil)
        let line = try #require(logs.lines(withMessage: "Dropped a corrupt cache entry").first, "no log line: \(logs.lines)")
        #expect(line.level == .warning)
        #expect(line.metadata["key"]?.hasPrefix("profile:#") == true, "\(line.text)")
        for raw in ["alice@example.com", "user-42"] {
            #expect(!line.text.contains(raw), "the log line holds \(raw): \(line.text)")
        }
    }

    @Test("removeAll leaves the cache folder without files")
    func removeAllDeletesFiles() throws {
        let fixture = try StoreFixture(.disk)
        for index in 0..<50 { try fixture.put("k\(index)", "SECRET-\(index)") }
        #expect(!fixture.directory.files().isEmpty)
        try fixture.store.removeAll()
        // At once: no file is left where any store looks; the moved files wait in `.discarded`.
        let visible = fixture.directory.filesNow().filter { !$0.path.contains("/\(DiscardedFiles.folderName)/") }
        #expect(visible.isEmpty, "left in the store's path: \(visible)")
        #expect(try fixture.reopened().usage().count == 0)
        // Right after, the background deletion has removed them.
        #expect(fixture.directory.files().isEmpty)
    }

    @Test("files a clearing moved aside before a crash are deleted by the next store, and never read")
    func discardedFilesSurviveNoCrash() throws {
        let fixture = try StoreFixture(.disk)
        for index in 0..<20 { try fixture.put("k\(index)", "SECRET-\(index)") }
        try fixture.store.removeAll()
        DiscardedFiles.waitForDeletions()
        // What a kill -9 between the move and the deletion leaves: the old files inside `.discarded`.
        let bin = fixture.directory.url.appendingPathComponent(DiscardedFiles.folderName).appendingPathComponent("crashed")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try Data("SECRET-LEFT-BEHIND".utf8).write(to: bin.appendingPathComponent("0-cache.sqlite"))
        let relaunched = fixture.reopened()
        #expect(try relaunched.usage().count == 0)
        #expect(try relaunched.get("k1", requester: nil) == nil)
        #expect(!fixture.directory.anyFileContains("SECRET-LEFT-BEHIND"))
    }

    @Test("data removed by scope is gone from the files, not only forgotten")
    func scopedRemovalErasesBytes() throws {
        let fixture = try StoreFixture(.disk)
        try fixture.put("balance:100", "ACCOUNT-ONE-HUNDRED-SECRET", scope: .user("u", account: "100"))
        try fixture.put("balance:1002", "ACCOUNT-ONE-THOUSAND-TWO", scope: .user("u", account: "1002"))
        #expect(fixture.directory.anyFileContains("ACCOUNT-ONE-HUNDRED-SECRET"))
        try fixture.store.removeAll(matching: .account("100"))
        #expect(!fixture.directory.anyFileContains("ACCOUNT-ONE-HUNDRED-SECRET"))
        #expect(fixture.directory.anyFileContains("ACCOUNT-ONE-THOUSAND-TWO"))
    }

    @Test("nothing is created on disk by reads before the first write")
    func lazyCreation() throws {
        let fixture = try StoreFixture(.disk)
        #expect(try fixture.text("a") == nil)
        #expect(try fixture.store.usage().count == 0)
        #expect(fixture.directory.files().isEmpty)
    }
}

@Suite("MemoryStore", .timeLimit(.minutes(10)))
struct MemoryStoreTests {
    @Test("the count limit evicts the oldest entry not read since; a read gives an entry a second chance")
    func countLimit() {
        let store = MemoryStore<Int>(limits: .init(countLimit: 3, costLimit: .max), clock: ManualClock())
        let metadata = CacheEntryMetadata(storedAt: Date(), expiresAt: nil)
        for (index, key) in ["a", "b", "c"].enumerated() { store.set(index, forKey: key, metadata: metadata) }
        _ = store.get("a")
        store.set(3, forKey: "d", metadata: metadata)
        // "a" was oldest but read: it moved to the newest end with its bit cleared, and "b" went.
        #expect(store.keysByRecency == ["a", "d", "c"])
        #expect(store.get("b") == nil)
        // Nothing read since: the next eviction takes the oldest, "c".
        store.set(4, forKey: "e", metadata: metadata)
        #expect(store.get("c") == nil)
        #expect(store.keysByRecency.sorted() == ["a", "d", "e"])
    }

    @Test("the second-chance order stays a consistent list through reads, replacements and removals")
    func listIntegrity() {
        let store = MemoryStore<Int>(limits: .init(countLimit: 1_000, costLimit: .max), clock: ManualClock())
        let metadata = CacheEntryMetadata(storedAt: Date(), expiresAt: nil)
        var model: [String] = []  // newest first
        var referenced: Set<String> = []
        for step in 0..<2_000 {
            let key = "k\((step &* 7919) % 97)"
            switch step % 5 {
            case 0, 1, 2:
                store.set(step, forKey: key, metadata: metadata)
                if model.contains(key) {
                    referenced.insert(key)  // a replacement counts as a use, in place
                } else {
                    model.insert(key, at: 0)
                }
            case 3:
                if store.get(key) != nil { referenced.insert(key) }
            default:
                store.remove(key)
                model.removeAll { $0 == key }
                referenced.remove(key)
            }
        }
        // The order eviction spares them: the referenced newest first, then the others newest first.
        #expect(store.keysByRecency == model.filter(referenced.contains) + model.filter { !referenced.contains($0) })
        #expect(store.usage().count == model.count)
    }
}
