import Foundation
import Logging

/// What every cache of an app shares: the clock, the timeout policy, the metrics registry, the
/// logger, the caches directory and the data directory. The composition root creates one and hands it to
/// each kit.
public struct CacheEnvironment: Sendable {
    /// The source of "now".
    public var clock: any CacheClock
    /// The timeout settings in force, shared so a reload reaches every cache.
    public var timeouts: CacheTimeoutPolicy
    /// Where every store's counts are kept.
    public var metrics: CacheMetricsRegistry
    /// Where caches report dropped entries and failures (keys redacted).
    public var logger: Logger
    /// The directory under which each feature's disk store gets a folder of its own: what the system may
    /// purge (Caches), such as responses and photos.
    public var cachesDirectory: URL
    /// The directory for the user's data that is not a cache, which the system must not purge (Application
    /// Support): a kit's own records, such as an address book, that the user works on offline.
    public var dataDirectory: URL
    /// Told before and after each change to what they hold by the stores screens are read from (the REST
    /// clients' HTTP caches, ``CacheManager``'s disk stores, the GraphQL records): the app's ``ScreenSnapshots``,
    /// which unseals what it saved from them. None by default.
    public var storeChanges: (any StoreChangeObserver)?
    private let secretBox = Locked<InstallSecret?>(nil)

    /// Deletes the secret's file and forgets it: the next use makes a new one. For a clear that leaves
    /// nothing its hashes could match (a logout).
    /// - Throws: when the file exists and cannot be deleted.
    public func forgetSecret() throws {
        try secretBox.withLock { secret in
            secret = nil
            try InstallSecret.delete(in: cachesDirectory)
        }
    }

    /// The installation's secret for keyed hashes, kept in ``cachesDirectory`` (created on first use).
    public var secret: InstallSecret {
        let directory = cachesDirectory
        return secretBox.withLock { secret in
            if let secret { return secret }
            let loaded = InstallSecret(directory: directory)
            secret = loaded
            return loaded
        }
    }

    /// Creates an environment.
    public init(
        clock: any CacheClock = SystemClock(),
        timeouts: CacheTimeoutPolicy = CacheTimeoutPolicy(),
        metrics: CacheMetricsRegistry = CacheMetricsRegistry(),
        logger: Logger = Logger(label: "CacheKit"),
        cachesDirectory: URL = CacheEnvironment.defaultCachesDirectory,
        dataDirectory: URL? = nil,
        storeChanges: (any StoreChangeObserver)? = nil
    ) {
        self.clock = clock
        self.timeouts = timeouts
        self.metrics = metrics
        self.logger = logger
        self.cachesDirectory = cachesDirectory
        self.dataDirectory = dataDirectory ?? Self.defaultDataDirectory(caches: cachesDirectory)
        self.storeChanges = storeChanges
    }

    /// The data directory that goes with `caches`: the platform's (``defaultDataDirectory``) for the default
    /// caches directory, else a folder beside it, `<caches>-support` (a test's temporary folder holds both).
    public static func defaultDataDirectory(caches: URL) -> URL {
        if caches.standardizedFileURL == defaultCachesStandardized { return defaultDataDirectory }
        return caches.deletingLastPathComponent().appendingPathComponent(caches.lastPathComponent + "-support", isDirectory: true)
    }

    /// The platform's directory for data that is not a cache (`~/Library/Application Support` on Apple
    /// platforms, `$XDG_DATA_HOME` or `~/.local/share` on Linux), with a `CacheKit` folder.
    /// Read once a process: asking the system costs a tenth of a millisecond, on every composition.
    public static let defaultDataDirectory: URL = {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        return base.appendingPathComponent("CacheKit", isDirectory: true)
    }()

    /// The platform's caches directory (`~/Library/Caches` on Apple platforms, `$XDG_CACHE_HOME` or
    /// `~/.cache` on Linux), with a `CacheKit` folder. Never the shared temporary folder, which other
    /// users of the device can list: without a caches directory, the user's home holds `.cache`.
    /// Read once a process, as ``defaultDataDirectory``.
    public static let defaultCachesDirectory: URL = {
        let base =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return base.appendingPathComponent("CacheKit", isDirectory: true)
    }()

    private static let defaultCachesStandardized = defaultCachesDirectory.standardizedFileURL
}
