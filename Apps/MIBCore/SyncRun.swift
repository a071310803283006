import CacheKit
import Foundation
import MIBApp

/// `mib sync`: signs in against a backend and runs the app's ``BackgroundSync`` once, as the host's
/// background-refresh task would, then signs out (clearing what it synced).
public enum SyncRun {
    /// Runs every kit's sync within `budget` seconds against `server` (or a reference backend started
    /// in `directory` when `nil`, with `contactCount` contacts an address book).
    /// - Throws: when the backend cannot be started or sign-in fails; a sync's own failure is in its report.
    public static func run(
        server: URL?, in directory: URL, budget: TimeInterval, contactCount: Int = 10_000, clock: DemoClock = DemoClock()
    ) async throws -> BackgroundSyncReport {
        try await DemoComposition.withBackend(server, in: directory, logger: DemoComposition.quietLogger, contactCount: contactCount) {
            baseURL in
            let app = try DemoComposition(
                baseURL: baseURL, cachesDirectory: directory.appendingPathComponent("caches"), logger: DemoComposition.quietLogger,
                clock: clock)
            _ = try await app.signIn()
            let report = await app.backgroundSync.run(budget: budget)
            _ = await app.logOut()
            return report
        }
    }
}
