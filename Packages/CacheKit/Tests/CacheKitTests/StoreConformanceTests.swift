import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// One suite, every store: what any `CacheStore` must do.
@Suite("Store conformance", .timeLimit(.minutes(10)))
struct StoreConformanceTests {
    @Test("a stored value is a hit; an absent key is a miss", arguments: StoreKind.allCases)
    func hitAndMiss(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "alpha")
        #expect(try fixture.text("a") == "alpha")
        #expect(try fixture.text("b") == nil)
        let counts = fixture.metrics.snapshot()
        #expect(counts.hits == 1)
        #expect(counts.misses == 1)
    }

    @Test(
        "an entry expires when the clock passes its expiry, counted as an expiration",
        arguments: StoreKind.allCases)
    func expiry(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "alpha", expiresIn: 30)
        fixture.clock.advance(by: 29)
        #expect(try fixture.text("a") == "alpha")
        fixture.clock.advance(by: 1)
        #expect(try fixture.text("a") == nil)
        #expect(fixture.metrics.snapshot().expirations == 1)
        #expect(try fixture.store.usage().count == 1, "an expired entry stays, as last known data")
        let stale = try #require(try fixture.store.peek("a", requester: nil), "readable as stale after a get")
        #expect(String(decoding: stale.value, as: UTF8.self) == "alpha")
    }

    @Test("peek returns a stale entry without removing it", arguments: StoreKind.allCases)
    func peekStale(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "alpha", expiresIn: 10)
        fixture.clock.advance(by: 60)
        let stale = try #require(try fixture.store.peek("a", requester: nil))
        #expect(String(decoding: stale.value, as: UTF8.self) == "alpha")
        #expect(!stale.metadata.isFresh(at: fixture.clock.now()))
        #expect(try fixture.store.usage().count == 1)
    }

    @Test("an entry stored with no expiry never expires", arguments: StoreKind.allCases)
    func never(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "alpha", expiresIn: nil)
        fixture.clock.advance(by: 10 * 365 * 86_400)
        #expect(try fixture.text("a") == "alpha")
    }

    @Test(
        "an end-of-day entry is fresh until midnight in its time zone, then expires",
        arguments: StoreKind.allCases)
    func endOfDayRollover(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let zone = try #require(TimeZone(identifier: "Australia/Melbourne"))
        // 2026-01-15 23:30 in Melbourne (UTC+11) is 12:30 UTC.
        fixture.clock.set(to: Date(timeIntervalSince1970: 1_768_480_200))
        let policy = CacheTimeoutPolicy()
        let now = fixture.clock.now()
        let expiry = policy.expiry(for: .endOfDay(zone), feature: nil, storedAt: now)
        try fixture.store.set(
            Data("prediction".utf8), forKey: "todays_prediction:a@b.co:2026-01-15",
            metadata: .init(storedAt: now, expiresAt: expiry, timeout: .endOfDay(zone)))
        fixture.clock.advance(by: 29 * 60)
        #expect(try fixture.text("todays_prediction:a@b.co:2026-01-15") == "prediction")
        fixture.clock.advance(by: 60)
        #expect(try fixture.text("todays_prediction:a@b.co:2026-01-15") == nil)
    }

    @Test(
        "eviction removes the least recently used entry; a read protects an entry",
        arguments: StoreKind.allCases)
    func lruOrder(kind: StoreKind) throws {
        // Each entry is a 1-byte key + 9-byte value = 10 bytes on disk, 9 in memory; limit 30 holds three.
        let fixture = try StoreFixture(kind, byteLimit: 30)
        try fixture.put("a", "aaaaaaaaa")
        try fixture.put("b", "bbbbbbbbb")
        try fixture.put("c", "ccccccccc")
        #expect(try fixture.text("a") != nil)
        try fixture.put("d", "ddddddddd")
        #expect(try fixture.text("b") == nil, "b was least recently used")
        #expect(try fixture.text("a") != nil)
        #expect(try fixture.text("c") != nil)
        #expect(try fixture.text("d") != nil)
        #expect(fixture.metrics.snapshot().evictions == 1)
    }

    @Test(
        "the byte limit holds after many writes, and the total is counted exactly",
        arguments: StoreKind.allCases)
    func costLimit(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, byteLimit: 1_000)
        for index in 0..<200 {
            try fixture.put("k\(index)", String(repeating: "x", count: 50 + index % 7))
        }
        let usage = try fixture.store.usage()
        #expect(usage.bytes <= 1_000)
        let described = try fixture.store.describeEntries()
        #expect(described.count == usage.count)
        #expect(described.map(\.bytes).reduce(0, +) == usage.bytes)
        #expect(try fixture.text("k199") != nil, "the newest entry stays")
    }

    @Test("a value larger than the whole limit is not stored", arguments: StoreKind.allCases)
    func oversizedValue(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, byteLimit: 100)
        try fixture.put("a", "small")
        try fixture.put("b", String(repeating: "x", count: 500))
        #expect(try fixture.text("b") == nil)
        #expect(try fixture.text("a") == "small")
    }

    @Test("replacing a value keeps one entry and recounts its size", arguments: StoreKind.allCases)
    func replace(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "first")
        try fixture.put("a", "second value")
        #expect(try fixture.text("a") == "second value")
        let usage = try fixture.store.usage()
        #expect(usage.count == 1)
        #expect(try fixture.store.describeEntries().first?.bytes == usage.bytes)
    }

    @Test("removal by account is exact: 100 never touches 1002", arguments: StoreKind.allCases)
    func exactAccountRemoval(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("balance:100", "one hundred", scope: .user("u1", account: "100"))
        try fixture.put("balance:1002", "one thousand two", scope: .user("u1", account: "1002"))
        try fixture.put("balance:10", "ten", scope: .user("u1", account: "10"))
        try fixture.put("profile", "me", scope: .user("u1"))
        #expect(try fixture.store.removeAll(matching: .account("100")) == 1)
        #expect(try fixture.text("balance:100", requester: "u1") == nil)
        #expect(try fixture.text("balance:1002", requester: "u1") == "one thousand two")
        #expect(try fixture.text("balance:10", requester: "u1") == "ten")
        #expect(try fixture.text("profile", requester: "u1") == "me")
    }

    @Test("removal by user and by tag is exact", arguments: StoreKind.allCases)
    func exactUserAndTagRemoval(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "A", scope: .user("alice", tags: ["dashboard", "feed"]))
        try fixture.put("b", "B", scope: .user("alice2", tags: ["dashboard2"]))
        try fixture.put("c", "C", scope: .user("bob", tags: ["feed"]))
        #expect(try fixture.store.removeAll(matching: .user("alice")) == 1)
        #expect(try fixture.text("b", requester: "alice2") == "B")
        #expect(try fixture.store.removeAll(matching: .tag("dashboard")) == 0)
        #expect(try fixture.store.removeAll(matching: .tag("feed")) == 1)
        #expect(try fixture.text("c", requester: "bob") == nil)
        #expect(try fixture.store.usage().count == 1)
    }

    @Test(
        "a user never reads another user's entry; shared entries are visible to all",
        arguments: StoreKind.allCases)
    func userIsolation(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("profile", "alice's profile", scope: .user("alice"))
        try fixture.put("catalog", "public", scope: .shared)
        #expect(try fixture.text("profile", requester: "bob") == nil)
        #expect(try fixture.text("profile", requester: nil) == nil)
        #expect(try fixture.store.peek("profile", requester: "bob") == nil)
        #expect(try fixture.text("profile", requester: "alice") == "alice's profile")
        #expect(try fixture.text("catalog", requester: "bob") == "public")
    }

    @Test("restamping recomputes expiry dates", arguments: StoreKind.allCases)
    func restamp(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("a", "alpha", expiresIn: 300)
        try fixture.store.restamp { $0.storedAt.addingTimeInterval(10) }
        // The positive control: within the new 10 s the entry is still there…
        fixture.clock.advance(by: 9)
        #expect(try fixture.text("a") == "alpha")
        // …and past them it is gone, long before the 300 s it was stored with.
        fixture.clock.advance(by: 2)
        #expect(try fixture.text("a") == nil)
    }

    @Test("100 tasks writing and reading at once leave consistent counts", arguments: StoreKind.allCases)
    func concurrentAccess(kind: StoreKind) async throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let metadata = fixture.metadata()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<100 {
                group.addTask {
                    var hits = 0
                    for index in 0..<10 {
                        let key = "t\(task)-\(index)"
                        try store.set(Data(key.utf8), forKey: key, metadata: metadata)
                        if let entry = try store.get(key, requester: nil), entry.value == Data(key.utf8) { hits += 1 }
                    }
                    return hits
                }
            }
            var hits = 0
            for try await taskHits in group { hits += taskHits }
            #expect(hits == 1_000)
        }
        let usage = try store.usage()
        #expect(usage.count == 1_000)
        #expect(try store.describeEntries().map(\.bytes).reduce(0, +) == usage.bytes)
        let counts = fixture.metrics.snapshot()
        #expect(counts.hits == 1_000)
        #expect(counts.writes == 1_000)
    }

    @Test("removeAll empties the store", arguments: StoreKind.allCases)
    func removeAll(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        for index in 0..<20 { try fixture.put("k\(index)", "value \(index)") }
        try fixture.store.removeAll()
        #expect(try fixture.store.usage() == CacheStoreUsage(count: 0, bytes: 0))
        #expect(try fixture.text("k1") == nil)
        try fixture.put("again", "works after clearing")
        #expect(try fixture.text("again") == "works after clearing")
    }
}
