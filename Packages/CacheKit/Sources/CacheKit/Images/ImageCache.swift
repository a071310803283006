import Foundation
import Logging

/// A cache of small images (contact thumbnails, avatars) on disk, per user, for any kit.
///
/// - **Storage**: SQLite blobs in one file under the caches directory, which the system may purge (a
///   ``DiskStore``: one transaction per write, a CRC-32 per image, least recently used eviction). One
///   file per image was measured against it on 10 KB images (`BENCHMARKS.md`, "The image cache:
///   storage"); SQLite was faster to read and write and has no file outside its accounting.
/// - **Limit**: ``Configuration/byteLimit``, 200 MB by default, for its files on disk (the database, its
///   write-ahead log and index); past it the least recently used images go. It is its own budget: the app-wide ``CacheBudget`` does not count or trim it.
/// - **Loads are shared**: twenty rows asking for one image at once make one load, and a call for an
///   image already loading waits for that load.
/// - **Only images are kept**: a load that fails, or whose bytes are no ``ImageFormat``, is not stored.
/// - **Per user**: a user never reads another's image, and a load that finishes after its user's
///   images were cleared is not stored. Logout clears everything (``clearAll()``); account deletion
///   clears the user's (``clear(userId:)``).
///
/// Keep full-size photos out of it: fetch them on demand and show them without storing.
///
/// ```swift
/// let thumbnails = ImageCache(environment: environment)     // the app owns one, registered in the container
/// // Through APICoreREST, the one way the app and its kits load images: kept for `userId`, loaded once on a
/// // miss, sent with `userId`'s token only.
/// let bytes = try await rest.image(at: photoPath, for: userId, in: thumbnails, feature: "thumbnails")
/// // Any other loader, for bytes that are not the server's:
/// let drawn = try await thumbnails.image(forKey: "avatar:\(userId)", user: userId) { try await renderAvatar() }
/// ```
public final class ImageCache: CacheClearingParticipant {
    /// Where and how much the cache keeps.
    public struct Configuration: Sendable {
        /// The folder of its database file (created on first write).
        public var directory: URL
        /// The most bytes its files take on disk (the database with its log); 200 MB by default.
        public var byteLimit: Int
        /// The participant's name in reports.
        public var name: String

        /// Creates a configuration.
        public init(directory: URL, byteLimit: Int = 200 * 1024 * 1024, name: String = "images") {
            self.directory = directory
            self.byteLimit = byteLimit
            self.name = name
        }
    }

    private struct State {
        var inFlight: [String: (id: Int, task: Task<Data, any Error>)] = [:]
        var nextFlight = 0
        /// Bumped by every clear, so a load that started before it is not stored after it.
        var generation = 0
    }

    /// Where and how much it keeps.
    public let configuration: Configuration
    /// The disk store holding the images.
    public let store: DiskStore
    private let clock: any CacheClock
    private let metrics: CacheMetrics
    private let logger: Logger
    private let state = Locked(State())
    /// Held by a load's generation check and its write, and by every clearing's bump and removal: a load that found no
    /// clearing since it started writes before the next clearing removes, never after it.
    private let writes = Locked(())

    /// Creates a cache; nothing is opened until first use.
    ///
    /// - Parameters:
    ///   - configuration: the folder and the byte limit.
    ///   - clock: the source of "now" for the stored dates.
    ///   - metrics: where hits, misses, writes and evictions are counted.
    ///   - logger: where failed loads and storage failures are reported (keys redacted).
    public init(
        configuration: Configuration, clock: any CacheClock = SystemClock(), metrics: CacheMetricsRegistry = CacheMetricsRegistry(),
        logger: Logger = Logger(label: "CacheKit.ImageCache")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = metrics.metrics(store: "sqlite", feature: configuration.name)
        store = DiskStore(
            name: "sqlite",
            configuration: .init(
                directory: configuration.directory, byteLimit: Self.entryBytes(within: configuration.byteLimit), fileName: "images.sqlite"),
            clock: clock, metrics: self.metrics, logger: logger)
    }

    /// A cache in the app's caches directory (`images/` under it), with its clock, metrics and logger.
    ///
    /// - Parameters:
    ///   - environment: the app's cache environment.
    ///   - byteLimit: the most bytes kept; 200 MB by default.
    public convenience init(environment: CacheEnvironment, byteLimit: Int = 200 * 1024 * 1024) {
        self.init(
            configuration: .init(
                directory: environment.cachesDirectory.appendingPathComponent("images", isDirectory: true), byteLimit: byteLimit),
            clock: environment.clock, metrics: environment.metrics, logger: environment.logger)
    }

    /// The bytes of images kept for a cache whose files may take `limit` bytes on disk: what the database's
    /// pages add to the images (an eighth is allowed: 6 % was measured on 20 KB images; smaller images cost
    /// more per byte and were not measured) and its write-ahead log
    /// (``CacheDatabase/logBytes`` after each checkpoint) come off. Under 16 MiB (a test's cache) the limit is
    /// the images' own.
    static func entryBytes(within limit: Int) -> Int {
        guard limit >= 16 * 1_048_576 else { return limit }
        return limit - limit / 8 - CacheDatabase.logBytes - 65_536
    }

    // MARK: Reading

    /// The stored image for `key` (usually its URL) if `user` has one; no load.
    public func image(forKey key: String, user: String) -> Data? {
        store.get(Self.storageKey(key, user: user), requester: user)?.value
    }

    /// The stored image for `key`, else `load`'s bytes, stored when they are an image.
    ///
    /// Concurrent calls for the same key and user share one load.
    ///
    /// - Parameters:
    ///   - key: what names the image, usually its URL.
    ///   - user: whose image it is; another user's never answers.
    ///   - load: fetches the bytes, only on a miss.
    /// - Throws: ``ImageCacheError/loadFailed(reason:)`` or ``ImageCacheError/notAnImage(bytes:)``
    ///   (nothing stored), ``ImageCacheError/cancelled`` when the load was cancelled.
    public func image(forKey key: String, user: String, load: @escaping @Sendable () async throws -> Data) async throws(ImageCacheError)
        -> Data
    {
        if let cached = image(forKey: key, user: user) { return cached }
        let flightKey = Self.storageKey(key, user: user)
        let task = state.withLock { state -> Task<Data, any Error> in
            if let flight = state.inFlight[flightKey] { return flight.task }
            state.nextFlight += 1
            let id = state.nextFlight
            let generation = state.generation
            let task = Task { [self] in
                defer { endFlight(flightKey, id: id) }
                return try await loadAndStore(key, user: user, generation: generation, load: load)
            }
            state.inFlight[flightKey] = (id, task)
            return task
        }
        do {
            return try await task.value
        } catch let error as ImageCacheError {
            throw error
        } catch {
            throw .loadFailed(reason: "\(error)")
        }
    }

    private func loadAndStore(_ key: String, user: String, generation: Int, load: @Sendable () async throws -> Data) async throws -> Data {
        // A caller that missed just before an earlier load of this image stored it and ended finds it here.
        if let stored = store.peek(Self.storageKey(key, user: user), requester: user)?.value { return stored }
        let data: Data
        do {
            data = try await load()
        } catch is CancellationError {
            throw ImageCacheError.cancelled
        } catch {
            logger.info("Image load failed; nothing stored", metadata: ["key": "\(key.redacted)", "error": "\(error)"])
            throw ImageCacheError.loadFailed(reason: "\(error)")
        }
        guard ImageFormat(sniffing: data) != nil else {
            logger.warning("Image load returned no image; nothing stored", metadata: ["key": "\(key.redacted)", "bytes": "\(data.count)"])
            throw ImageCacheError.notAnImage(bytes: data.count)
        }
        writes.withLock { _ in
            guard state.withLock({ $0.generation }) == generation else {
                logger.debug("Image load finished after a clear; not stored", metadata: ["key": "\(key.redacted)"])
                return
            }
            do {
                try store.set(
                    data, forKey: Self.storageKey(key, user: user),
                    metadata: CacheEntryMetadata(storedAt: clock.now(), expiresAt: nil, timeout: .never, scope: .user(user, tags: [key])))
            } catch {
                logger.error("Could not store an image", metadata: ["key": "\(key.redacted)", "error": "\(error)"])
            }
        }
        return data
    }

    private func endFlight(_ flightKey: String, id: Int) {
        state.withLock { state in
            if state.inFlight[flightKey]?.id == id { state.inFlight[flightKey] = nil }
        }
    }

    /// One user's image under one key: users never share an entry, even for the same URL.
    static func storageKey(_ key: String, user: String) -> String {
        "\(user)\u{1F}\(key)"
    }

    // MARK: Clearing

    /// Removes every image of `userId` (account deletion), their bytes purged from the file.
    public func clear(userId: String) throws {
        try clearing { try store.removeAll(matching: .user(userId)) }
    }

    /// Removes `userId`'s image under `key` (a contact deleted on the device, or gone from the server); other
    /// users' copies of the same path stay.
    public func clear(forKey key: String, user userId: String) throws {
        try clearing { _ = try store.remove(Self.storageKey(key, user: userId)) }
    }

    /// Deletes every image and the database file (logout).
    public func clearAll() throws {
        try clearing { try store.removeAll() }
    }

    /// Moves the generation on, so no load started before writes, and runs `removal` with ``writes`` held.
    private func clearing(_ removal: () throws -> Void) throws {
        try writes.withLock { _ in
            state.withLock { $0.generation += 1 }
            try removal()
        }
    }
}

extension ImageCache {
    /// ``Configuration/name``.
    public var participantName: String { configuration.name }
    /// Kit data.
    public var category: CacheCategory { .data }
    /// Not counted in the app-wide ``CacheBudget``: the cache keeps its own limit.
    public var isInAppBudget: Bool { false }

    /// Images are per user, not per account: nothing to do.
    public func clear(forAccountId accountId: String) throws {}

    /// Removes every user's image under `key` (its URL): what the app-wide ``UnifiedCacheManager/clearCache(forQuery:)``
    /// asks for, when the image at that address changed for everyone. A kit removing one user's copy (a
    /// record deleted) uses ``clear(forKey:user:)``.
    public func clear(forKey key: String) throws {
        try clearing { try store.removeAll(matching: .tag(key)) }
    }

    /// Images held and their bytes, with hits, misses, writes and evictions.
    public func statistics() throws -> [CacheStoreStatistics] {
        [CacheStoreStatistics(participant: participantName, category: category, counts: metrics.snapshot(), usage: try store.usage())]
    }

    /// Every image, redacted (keys, users hashed; bytes never shown).
    public func exportEntries() throws -> [CacheExportEntry] {
        try store.describeEntries().map { CacheExportEntry(participant: participantName, store: store.name, entry: $0) }
    }

    /// Evicts the least recently used images until at most `bytes` remain.
    public func trim(toBytes bytes: Int) throws {
        _ = try store.trim(toBytes: bytes)
    }
}
