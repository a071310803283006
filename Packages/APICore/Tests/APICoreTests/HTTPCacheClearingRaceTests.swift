import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICoreREST

/// The attack: a response for the last user lands in the HTTP cache after the logout's clearing. A store let through
/// by the barriers before a clearing, and a disk hit read before it, are each paused at their last step while the
/// clearing runs; neither may leave the response in the cache after it.
@Suite(.timeLimit(.minutes(5))) struct HTTPCacheClearingRaceTests {
    static let key = "GET https://api.example/accounts/100"
    static let metadata = CacheEntryMetadata(
        storedAt: Date(), expiresAt: Date().addingTimeInterval(3_600), scope: .user("alice", account: "100"))

    /// Pauses a store between its check of the barriers and its writes: the first change it announces.
    struct PausingObserver: StoreChangeObserver {
        let pause: StepPause
        func storeWillChange() { pause.pauseIfArmed() }
        func storeDidChange() {}
    }

    static func cache(in directory: TemporaryDirectory, clock: any CacheClock = SystemClock(), changes: PausingObserver? = nil) -> HTTPCache
    {
        HTTPCache(
            name: "race",
            environment: CacheEnvironment(
                clock: clock, cachesDirectory: directory.url.appendingPathComponent("caches"), storeChanges: changes),
            memoryLimits: .init(countLimit: 100, costLimit: 1_000_000), diskByteLimit: 1_000_000)
    }

    static func response(_ cache: HTTPCache) -> StoredResponse {
        StoredResponse(
            status: 200, headerFields: [.contentType: "application/json"], body: Data("ALICE-BALANCE".utf8), requestTime: Date(),
            responseTime: Date(), requestFields: [:], secret: cache.secret)
    }

    /// Runs `step` on its own thread, waits until it is paused, clears, resumes it and waits for it to end.
    static func clear(_ cache: HTTPCache, besidePaused step: @escaping @Sendable () -> Void, pause: StepPause) async throws {
        let ended = Locked(false)
        Thread.detachNewThread {
            step()
            ended.withLock { $0 = true }
        }
        try await waitUntil("the step paused") { pause.isPaused }
        try await cache.clearAll()
        pause.resume()
        try await waitUntil("the step ended") { ended.withLock { $0 } }
    }

    static func expectNothingLeft(_ cache: HTTPCache, in directory: TemporaryDirectory) {
        #expect(cache.memory.peek(key, requester: "alice") == nil, "the last user's response is in memory after the clearing")
        #expect(cache.lookup(key, requester: "alice", requestFields: [:]) == nil)
        #expect(!directory.anyFileContains("ALICE-BALANCE"))
    }

    @Test func aStoreLetThroughBeforeAClearingDoesNotLandAfterIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pause = StepPause()
        let cache = Self.cache(in: directory, changes: PausingObserver(pause: pause))
        let response = Self.response(cache)
        let generation = cache.generation
        pause.arm()
        try await Self.clear(
            cache,
            besidePaused: {
                cache.store(response, forKey: Self.key, metadata: Self.metadata, uplifted: true, startedIn: generation)
            }, pause: pause)
        Self.expectNothingLeft(cache, in: directory)
    }

    @Test func aDiskHitReadBeforeAClearingIsNotKeptInMemoryAfterIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pause = StepPause()
        let cache = Self.cache(in: directory, clock: PausingClock(pause: pause))
        cache.store(Self.response(cache), forKey: Self.key, metadata: Self.metadata, uplifted: true, startedIn: cache.generation)
        cache.memory.removeAll()
        pause.arm()
        try await Self.clear(
            cache,
            besidePaused: {
                _ = cache.lookup(Self.key, requester: "alice", requestFields: [:])
            }, pause: pause)
        Self.expectNothingLeft(cache, in: directory)
    }
}
