import Foundation
import Logging

/// What every cache of an app shares: the clock, the timeout policy, the metrics registry, the
/// logger and the caches directory. The composition root creates one and hands it to each kit.
public struct CacheEnvironment: Sendable {
    /// The source of "now".
    public var clock: any CacheClock
    /// The timeout settings in force, shared so a reload reaches every cache.
    public var timeouts: CacheTimeoutPolicy
    /// Where every store's counts are kept.
    public var metrics: CacheMetricsRegistry
    /// Where caches report dropped entries and failures (keys redacted).
    public var logger: Logger
    /// The directory under which each feature's disk store gets a folder of its own.
    public var cachesDirectory: URL

    /// Creates an environment.
    public init(
        clock: any CacheClock = SystemClock(),
        timeouts: CacheTimeoutPolicy = CacheTimeoutPolicy(),
        metrics: CacheMetricsRegistry = CacheMetricsRegistry(),
        logger: Logger = Logger(label: "CacheKit"),
        cachesDirectory: URL = CacheEnvironment.defaultCachesDirectory
    ) {
        self.clock = clock
        self.timeouts = timeouts
        self.metrics = metrics
        self.logger = logger
        self.cachesDirectory = cachesDirectory
    }

    /// The platform's caches directory (`~/Library/Caches` on Apple platforms, `$XDG_CACHE_HOME` or
    /// `~/.cache` on Linux), with a `CacheKit` folder.
    public static var defaultCachesDirectory: URL {
        let base =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("CacheKit", isDirectory: true)
    }
}
