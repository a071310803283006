import Foundation

/// The app-lifecycle events a host app forwards to the caches: returning to the foreground after a
/// long absence makes every cache stale (each screen revalidates on next use, and still shows its
/// last known data meanwhile), and a push that names what changed on the server invalidates it.
///
/// ```swift
/// let lifecycle = AppLifecycle(caches: unified, clock: environment.clock)
/// // scenePhase .background → lifecycle.didEnterBackground()
/// // scenePhase .active     → await lifecycle.willEnterForeground()
/// // a silent push {"invalidate": {"account": "100"}} → await lifecycle.receivedPush(.account("100"))
/// ```
public final class AppLifecycle: Sendable {
    /// What a push says changed on the server.
    public enum Invalidation: Sendable, Hashable {
        /// Everything of one account (removed from every cache; refetched on next use).
        case account(String)
        /// One query's or request's cache key.
        case key(String)
        /// Everything: every entry becomes stale (kept as last known data, revalidated on next use).
        case everything
    }

    /// How long the app may stay in the background before its data is revalidated (one hour).
    public let revalidateAfter: TimeInterval
    private let caches: UnifiedCacheManager
    private let clock: any CacheClock
    private let backgroundSince = Locked<Date?>(nil)
    private let returnActions = Locked<[@Sendable () async -> Void]>([])

    /// Creates the hooks over the app's caches.
    public init(caches: UnifiedCacheManager, clock: any CacheClock, revalidateAfter: TimeInterval = 3_600) {
        self.caches = caches
        self.clock = clock
        self.revalidateAfter = revalidateAfter
    }

    /// The app went to the background.
    public func didEnterBackground() {
        let now = clock.now()
        backgroundSince.withLock { $0 = now }
    }

    /// Runs `action` each time the app returns to the foreground after more than ``revalidateAfter``
    /// away, once the caches were made stale: a kit's incremental sync started in the background.
    public func whenBackAfterLongAbsence(_ action: @escaping @Sendable () async -> Void) {
        returnActions.withLock { $0.append(action) }
    }

    /// The app returns to the foreground: after more than ``revalidateAfter`` away, every cache is
    /// made stale and the actions of ``whenBackAfterLongAbsence(_:)`` run. Returns whether it was.
    @discardableResult
    public func willEnterForeground() async -> Bool {
        let since = backgroundSince.withLock { since in
            defer { since = nil }
            return since
        }
        guard let since, clock.now().timeIntervalSince(since) > revalidateAfter else { return false }
        await caches.clearTimestamps()
        for action in returnActions.withLock({ $0 }) { await action() }
        return true
    }

    /// A push named what changed on the server.
    @discardableResult
    public func receivedPush(_ invalidation: Invalidation) async -> ClearingReport {
        switch invalidation {
        case .account(let id): await caches.clearCache(forAccountId: id)
        case .key(let key): await caches.clearCache(forQuery: key)
        case .everything: await caches.clearTimestamps()
        }
    }
}
