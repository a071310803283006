import APICore
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import Foundation
import HTTPTypes
import MIBApp
import SessionKit

// Offline: last known data with its age, changes queued and applied once after a restart, payments refused.

extension EndToEnd {
    /// Every user route dropped at the connection (the admin routes stay, to undo it).
    static let offlineFaults =
        "["
        + [
            "/api/", "/graphql", "/auth/", "/health", "/chat-history", "/predict", "/compatibility",
            "/todays-prediction", "/astrodata", "/subscription", "/contacts", "/circles", "/score", "/suggestions",
            "/premium", "/avatars", "/disputes", "/profile",
        ]
        .map { #"{"pathPrefix":"\#($0)","dropConnection":true}"# }.joined(separator: ",") + "]"

    /// Runs `body` with the backend unreachable for the user's routes, then restores it.
    static func whileOffline<T>(_ app: DemoComposition, _ body: () async throws -> T) async throws -> T {
        try await app.admin(.put, "admin/faults", json: offlineFaults)
        do {
            let result = try await body()
            try await app.admin(.delete, "admin/faults")
            return result
        } catch {
            try? await app.admin(.delete, "admin/faults")
            throw error
        }
    }

    /// Waits (at most 30 s) until `app`'s queue has nothing pending and no replay going, as it gets by itself
    /// once the app is launched or signed in.
    static func drained(_ app: DemoComposition) async throws {
        let queue = app.queue
        try await withDeadline(.seconds(30), "the queue sending what it holds by itself") {
            for await state in await queue.states() where state.pendingCount == 0 && !state.isReplaying { return }
        }
    }

    static let offlineScenarios: [Scenario] = [
        Scenario(kit: "offline", name: "offline, every screen shows its last known data with its age") { app in
            try await app.signIn()
            let page = try await app.catalog.page(limit: 20)
            let balance = try await app.accounts.balance(accountId: "100").value
            app.clock.advance(by: 3 * 3_600)
            let (list, offlineBalance, status) = try await whileOffline(app) {
                let model = CatalogListModel(client: app.catalog, limit: 20)
                await model.load()
                return (await model.current, try await app.accounts.balance(accountId: "100"), app.connectivity.status)
            }
            try require(status == .offline, "connectivity says \(status)")
            try require(list.listing.funnels.map(\.slug) == page.value.funnels.map(\.slug), "the catalog shows other funnels")
            try require(list.status?.label == "Offline · last updated 3 h ago", "catalog label: \(list.status?.label ?? "none")")
            try require(
                offlineBalance.value == balance && offlineBalance.status.isOffline,
                "balance \(offlineBalance.value) offline \(offlineBalance.status.isOffline)")
            return "catalog: \(list.status?.label ?? ""); balance: \(offlineBalance.status.label ?? "")"
        },
        Scenario(kit: "offline", name: "favorites changed offline survive a restart and are applied once, in order") { app in
            try await app.signIn()
            let before = Set(try await app.favorites.favorites().value)
            let (first, second) = ("funnel-2", "funnel-5")
            try await whileOffline(app) {
                try await app.favorites.setFavorite(first, !before.contains(first))
                try await app.favorites.setFavorite(second, !before.contains(second))
                try await app.favorites.setFavorite(first, before.contains(first))
                let state = await app.queue.states().first { _ in true }
                try require(
                    state?.pendingCount == 3 && state?.message == "Will sync when online",
                    "queue: \(state?.pendingCount ?? -1) pending")
                // The process ends here, still offline; a new one opens the same folder.
                await app.queue.stop()
            }
            let relaunched = try DemoComposition(
                baseURL: app.baseURL, cachesDirectory: app.environment.cachesDirectory, transport: app.makeTransport,
                logger: DemoComposition.quietLogger)
            // The app's one launch call: it restores the session and starts the queue, which sends what is left.
            let launched = await relaunched.composition.launch(offlineFirst: false)
            try require(launched.user?.userId != nil, "the relaunch is \(launched)")
            try await Self.drained(relaunched)
            let after = Set(try await relaunched.favorites.favorites().value)
            try require(after == before.symmetricDifference([second]), "favorites \(after.sorted()) from \(before.sorted())")
            return "3 changes queued offline, sent by the relaunch itself: favorites now \(after.sorted())"
        },
        Scenario(kit: "offline", name: "a payment offline fails at once, never queued; asked again online it is paid once") { app in
            try await app.signIn()
            let before = try await app.balance()
            let error = try await whileOffline(app) { () async -> AccountsError? in
                do throws(AccountsError) {
                    _ = try await app.accounts.makePayment(accountId: "100", amount: 100)
                    return nil
                } catch {
                    return error
                }
            }
            // The connection dropped: whether the server took the payment is not known ("connect to pay" only
            // when no connection was made at all).
            try require(
                error == .requiresConnection || error == .paymentOutcomeUnknown(accountId: "100"),
                "the payment gave \(String(describing: error))")
            try require(await app.queue.pending().isEmpty, "the payment was queued")
            try require(try await app.balance(policy: .fetchIgnoringCacheData) == before, "the balance changed")
            _ = try await app.accounts.makePayment(accountId: "100", amount: 100)
            try require(try await app.balance(policy: .fetchIgnoringCacheData) == before - 100, "not paid exactly once")
            return "\(error.map { "\($0)" } ?? ""), then paid once online"
        },
        Scenario(kit: "offline", name: "account deletion leaves no file of the user, and the app at its first state") { app in
            let user = try await app.signIn()
            _ = try await app.loadCatalog()
            _ = try await app.accounts.dashboard()
            try app.composition.preferences(for: user).set(true, forKey: "onboarding.done")
            _ = try await whileOffline(app) { try await app.favorites.setFavorite("funnel-9", true) }
            await app.queue.stop()
            let report = await app.session.deleteAccountData()
            try require(report.isComplete, "deletion failures: \(report.failed)")
            let support = app.tokenFile.deletingLastPathComponent().deletingLastPathComponent()
            let left = Self.files(under: app.environment.cachesDirectory) + Self.files(under: support)
            try require(left.isEmpty, "files left: \(left)")
            try require(app.session.current == .signedOut, "state \(app.session.current)")
            return "erased: \(report.succeeded.joined(separator: ", ")); no file left"
        },
        Scenario(kit: "offline", name: "account deletion after a logout still erases the changes queued for the next sign-in") { app in
            try await app.signIn()
            _ = try await whileOffline(app) { try await app.favorites.setFavorite("funnel-9", true) }
            await app.queue.stop()
            _ = await app.logOut()
            let support = app.tokenFile.deletingLastPathComponent().deletingLastPathComponent()
            try require(Self.files(under: support).contains { $0.contains("queue-") }, "the logout kept no queue")
            let report = await app.session.deleteAccountData()
            try require(report.isComplete, "deletion failures: \(report.failed)")
            let left = Self.files(under: app.environment.cachesDirectory) + Self.files(under: support)
            try require(left.isEmpty, "files left: \(left)")
            return "signed out, then deleted: \(report.succeeded.joined(separator: ", ")); no file left"
        },
    ]

    /// Every regular file under `directory`, relative to it.
    static func files(under directory: URL) -> [String] {
        DiscardedFiles.waitForDeletions()
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        return enumerator.compactMap { item in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { return nil }
            return String(url.path.dropFirst(directory.path.count))
        }
    }
}
