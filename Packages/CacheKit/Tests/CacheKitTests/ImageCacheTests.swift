import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

/// ``ImageCache`` on real files: shared loads, only images kept, users apart, least recently used
/// eviction, clearing, and a corrupt image never read back.
@Suite(.timeLimit(.minutes(10))) struct ImageCacheTests {
    /// A small PNG whose bytes follow from `seed`.
    static func image(_ seed: String, bytes: Int = 1_000) -> Data {
        var data = Data("\(seed)#".utf8)
        while data.count < bytes - 45 { data.append(UInt8(truncatingIfNeeded: data.count &* 31 &+ seed.utf8.count)) }
        return TestImage.png(data)
    }

    @Test func twentyRowsAskingForOneImageMakeOneLoadAndAnImageLoadingIsAwaited() async throws {
        try await withCache { cache, _ in
            let loads = Locked(0)
            let gate = AsyncGate()
            let results = try await withThrowingTaskGroup(of: Data.self) { group in
                // Opened on every way out, a failed wait included: the group waits for its loads.
                defer { gate.open() }
                for _ in 0..<20 {
                    group.addTask {
                        try await cache.image(forKey: "https://cdn/a.png", user: "alice") {
                            loads.withLock { $0 += 1 }
                            await gate.wait()
                            return Self.image("a")
                        }
                    }
                }
                try await waitUntil("20 rows missed the cache") { try cache.statistics().first?.counts.misses == 20 }
                gate.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(loads.withLock { $0 } == 1 && results.count == 20 && results.allSatisfy { $0 == Self.image("a") })
            #expect(cache.image(forKey: "https://cdn/a.png", user: "alice") == Self.image("a"))
        }
    }

    @Test func aFailedOrNonImageLoadIsNotStoredAndTheNextAskLoadsAgain() async throws {
        try await withCache { cache, _ in
            struct Offline: Error {}
            await #expect(throws: ImageCacheError.loadFailed(reason: "Offline()")) {
                try await cache.image(forKey: "k", user: "alice") { throw Offline() }
            }
            let page = Data("<html>Service unavailable</html>".utf8)
            // First bytes that only look like an image: a PNG signature before a page, a truncated PNG.
            let disguised = Data(ImageFormat.pngSignature) + page
            let truncated = Self.image("k").dropLast(5)
            for bytes in [page, disguised, Data(truncated), Data([0xFF, 0xD8, 0xFF]) + page, Data("GIF89a".utf8) + page] {
                await #expect(throws: ImageCacheError.notAnImage(bytes: bytes.count)) {
                    try await cache.image(forKey: "k", user: "alice") { bytes }
                }
            }
            let held = try cache.store.usage().count
            #expect(cache.image(forKey: "k", user: "alice") == nil && held == 0)
            let loaded = try await cache.image(forKey: "k", user: "alice") { Self.image("k") }
            #expect(loaded == Self.image("k") && cache.image(forKey: "k", user: "alice") == loaded)
        }
    }

    @Test func aUserNeverReadsAnotherUsersImageEvenForTheSameURL() async throws {
        try await withCache { cache, _ in
            _ = try await cache.image(forKey: "https://cdn/p.png", user: "alice") { Self.image("alice's") }
            #expect(cache.image(forKey: "https://cdn/p.png", user: "bob") == nil)
            let bobs = try await cache.image(forKey: "https://cdn/p.png", user: "bob") { Self.image("bob's") }
            #expect(bobs == Self.image("bob's") && cache.image(forKey: "https://cdn/p.png", user: "alice") == Self.image("alice's"))
            try cache.clear(userId: "alice")
            #expect(cache.image(forKey: "https://cdn/p.png", user: "alice") == nil)
            #expect(cache.image(forKey: "https://cdn/p.png", user: "bob") == bobs, "clearing one user keeps the others'")
        }
    }

    @Test func pastItsLimitTheLeastRecentlyUsedImagesGo() async throws {
        // Each entry is its key (alice + separator + one letter: 7 bytes) and 1,000 image bytes.
        try await withCache(byteLimit: 5 * 1_007) { cache, _ in
            for name in ["a", "b", "c", "d", "e"] { _ = try await cache.image(forKey: name, user: "alice") { Self.image(name) } }
            #expect(cache.image(forKey: "a", user: "alice") != nil, "a is now the most recently used")
            _ = try await cache.image(forKey: "f", user: "alice") { Self.image("f") }
            let kept = ["a", "b", "c", "d", "e", "f"].filter { cache.image(forKey: $0, user: "alice") != nil }
            #expect(kept == ["a", "c", "d", "e", "f"])
            #expect(try cache.store.usage().bytes <= 5 * 1_007)
        }
    }

    @Test func aLoadThatFinishesAfterAClearIsNotStored() async throws {
        try await withCache { cache, _ in
            let gate = AsyncGate()
            let started = Locked(false)
            async let late = cache.image(forKey: "k", user: "alice") {
                started.withLock { $0 = true }
                await gate.wait()
                return Self.image("k")
            }
            // The gate opens on every path: a failed wait would otherwise leave `late` blocked for ever, and the
            // implicit await of an `async let` at the end of the scope would hang the suite (seen under
            // ThreadSanitizer on two cores, where the load once took over 30 s to start). The deadline is a guard
            // against a hang, not a figure the test checks.
            do {
                try await waitUntil("the load started") { started.withLock { $0 } }
                try cache.clearAll()
            } catch {
                gate.open()
                throw error
            }
            gate.open()
            #expect(try await late == Self.image("k"), "the caller still gets its image")
            #expect(cache.image(forKey: "k", user: "alice") == nil, "but it is not stored after the logout")
        }
    }

    @Test func clearingAllDeletesTheFileAndAnImageWhoseBytesChangedOnDiskIsAMiss() async throws {
        try await withCache { cache, folder in
            _ = try await cache.image(forKey: "k", user: "alice") { Self.image("k") }
            _ = try await cache.image(forKey: "j", user: "alice") { Self.image("j") }
            let file = folder.appendingPathComponent("images.sqlite")
            try cache.store.removeAll()
            // Reopen after a byte of one image changed behind the store's back.
            _ = try await cache.image(forKey: "k", user: "alice") { Self.image("k") }
            let database = try DatabaseQueue(path: file.path)
            try await database.write { db in
                try db.execute(sql: "UPDATE entry SET value = ? WHERE key LIKE '%k'", arguments: [Self.image("x")])
            }
            try database.close()
            #expect(cache.image(forKey: "k", user: "alice") == nil, "a changed image is dropped, never shown")
            try cache.clearAll()
            DiscardedFiles.waitForDeletions()
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != DiscardedFiles.folderName }
            #expect(left.isEmpty, "no file left after clearing: \(left)")
        }
    }

    @Test func theAppWideBudgetNeitherCountsNorTrimsTheImageCache() async throws {
        try await withCache { cache, _ in
            _ = try await cache.image(forKey: "k", user: "alice") { Self.image("k", bytes: 5_000) }
            let unified = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
            unified.register(cache)
            unified.budget = CacheBudget(totalBytes: 1_000)
            let report = await unified.enforceBudget()
            #expect(report.shares.isEmpty && cache.image(forKey: "k", user: "alice") != nil)
            #expect(await unified.statistics().first?.usage.count == 1, "it is still shown in statistics")
        }
    }

    private func withCache(byteLimit: Int = 1_000_000, _ body: (ImageCache, URL) async throws -> Void) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = ImageCache(configuration: .init(directory: folder.url, byteLimit: byteLimit))
        try await body(cache, folder.url)
    }
}
