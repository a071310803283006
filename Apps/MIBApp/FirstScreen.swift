import APICore
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import Foundation
import Logging
import SessionKit

/// The app's first screen: the catalog's first page and the accounts dashboard.
public struct FirstScreen: Codable, Sendable, Hashable {
    /// The catalog's first page.
    public var catalog: CatalogPage
    /// The accounts dashboard.
    public var dashboard: Dashboard

    /// Creates a first screen.
    public init(catalog: CatalogPage, dashboard: Dashboard) {
        self.catalog = catalog
        self.dashboard = dashboard
    }

    /// The first screen from its snapshot's JSON: read by hand where that reads as `JSONDecoder` would (the catalog's
    /// page by its own reader, the dashboard through `JSONValueDecoder`), and by `JSONDecoder` otherwise. Every
    /// launch reads it, and `JSONDecoder` took four fifths of that read.
    /// - Throws: `JSONDecoder`'s error when the bytes are no first screen.
    static func decodeSnapshot(_ body: Data) throws -> FirstScreen {
        if let parsed = try? JSONValue.parse(body, refusingDuplicateKeys: true), case .object(let parts) = parsed,
            let catalog = parts["catalog"].flatMap(CatalogPage.init(json:)), let board = parts["dashboard"],
            let dashboard = try? JSONValueDecoder().decode(Dashboard.self, from: board)
        {
            return FirstScreen(catalog: catalog, dashboard: dashboard)
        }
        return try JSONDecoder().decode(FirstScreen.self, from: body)
    }
}

extension Composition {
    /// The first screen's snapshot name.
    static let firstScreenName = "first-screen"

    /// The first screen as the app last showed it to the user whose session is stored, for the first
    /// frame of a relaunch: one file read and one decode, before the composition is built (then
    /// ``firstScreen()`` reads it from the caches and replaces it). Show it with its age (`savedAt`).
    ///
    /// When it is current (`isCurrent`: read fresh from the caches, no store changed since, and its freshness not
    /// ended), it is the first screen itself: the app shows it without ``firstScreen()``.
    ///
    /// `nil` when nobody is signed in, when the stored session may not be used offline (past its expiry or
    /// the offline grace, never validated on this device, or the clock set back: the same limits as
    /// `SessionManager`'s), when the snapshot is another user's, or when there is none (none was saved,
    /// or a clearing dropped it).
    /// - Parameters:
    ///   - cachesDirectory: as the composition's ``init(baseURL:cachesDirectory:supportDirectory:keepsQueueAtLogout:clock:transport:retry:logger:graphQLStore:startsFirstSync:sessionRequestTimeout:)``.
    ///   - supportDirectory: likewise.
    ///   - offlineGrace: the session's offline grace.
    ///   - now: the device's clock.
    public static func lastFirstScreen(
        cachesDirectory: URL, supportDirectory: URL? = nil,
        offlineGrace: Duration = SessionManager.Configuration.defaultOfflineGrace, now: Date = Date()
    ) -> ScreenSnapshot<FirstScreen>? {
        let support = supportDirectory ?? defaultSupportDirectory(caches: cachesDirectory)
        guard let token = try? tokenStore(file: tokenFile(support: support)).load(), token.erasingAccount != true,
            token.offlineLimit(at: now, grace: TimeInterval(offlineGrace.components.seconds)) == nil
        else { return nil }
        return ScreenSnapshots(directory: snapshotsDirectory(caches: cachesDirectory))
            .load(FirstScreen.self, screen: firstScreenName, user: token.userId, at: now, decode: FirstScreen.decodeSnapshot)
    }

    /// The first screen read through the caches (the network where they hold nothing fresh), both parts
    /// at once, then saved as the next launch's first frame when the same user is still signed in and
    /// nothing was cleared meanwhile. Call it each time the first screen is shown. When both parts came from
    /// the caches fresh, no store changed during the read, and the GraphQL records are kept in a file, the
    /// snapshot is saved as current until the first part's freshness ends: the next launch shows it without
    /// reading the caches.
    /// - Parameter policy: how both reads use the caches.
    /// - Throws: `CatalogError` or `AccountsError`, as ``catalog`` and ``accounts`` throw them; a snapshot
    ///   that cannot be written is only logged.
    public func firstScreen(policy: CachePolicy = .default) async throws -> (
        catalog: APIResponse<CatalogPage>, dashboard: Loaded<Dashboard>
    ) {
        let user = await session.currentCredentials()?.userId
        let mark = snapshots.mark()
        async let page = catalog.page(policy: policy)
        async let board = accounts.dashboard(policy: policy)
        let (first, dashboard) = try await (page, board)
        if let user, await session.currentCredentials()?.userId == user {
            do {
                try snapshots.save(
                    FirstScreen(catalog: first.value, dashboard: dashboard.value), screen: Self.firstScreenName, user: user,
                    at: clock.now(), readSince: mark,
                    currentUntil: sealsFirstScreen ? Self.freshUntil(first.freshness, dashboard.status.freshness) : nil)
            } catch {
                environment.logger.warning("The first screen's snapshot could not be saved", metadata: ["error": "\(error)"])
            }
        }
        return (first, dashboard)
    }

    /// When the first of `parts` stops being fresh, if every one was read fresh from a cache that knows.
    static func freshUntil(_ parts: Freshness...) -> Date? {
        let ends = parts.compactMap { $0.state == .fresh ? $0.expiresAt : nil }
        return ends.count == parts.count ? ends.min() : nil
    }

    /// The app went to the background: ``lifecycle`` is told, and the first screen's snapshot is saved
    /// again from what the caches hold now, without a request, so that the next launch's first frame shows
    /// what changed since the screen was last shown (a payment's new balance). When the caches hold no
    /// fresh first screen, the snapshot stays as it was.
    public func didEnterBackground() async {
        lifecycle.didEnterBackground()
        _ = try? await firstScreen(policy: .returnCacheDataDontFetch)
    }

    /// The support folder when the app names none: a sibling of the caches folder, `<caches>-support`.
    static func defaultSupportDirectory(caches: URL) -> URL {
        CacheEnvironment.defaultDataDirectory(caches: caches)
    }

    /// Where the keys the server gave this device at its sign-ins are kept (SessionKit's `DeviceKeys`).
    static func deviceKeysFile(support: URL) -> URL {
        support.appendingPathComponent("session/device-keys.json", isDirectory: false)
    }

    /// The session's token file in the support folder (used where there is no Keychain).
    static func tokenFile(support: URL) -> URL {
        support.appendingPathComponent("session/token.json", isDirectory: false)
    }

    /// The screens' snapshots, a folder of the caches.
    static func snapshotsDirectory(caches: URL) -> URL {
        caches.appendingPathComponent("snapshots", isDirectory: true)
    }
}
