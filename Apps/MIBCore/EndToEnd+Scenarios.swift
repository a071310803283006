import APICore
import APICoreGraphQL
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import Foundation
import HTTPTypes
import MIBApp
import SessionKit

// The scenarios, by kit. A kit that lands adds its list here and to `EndToEnd.scenarios`.

extension EndToEnd {
    static let catalogScenarios: [Scenario] = [
        Scenario(kit: "catalog", name: "every page arrives once, in the contract's order") { app in
            let listing = try await app.loadCatalog()
            let slugs = listing.funnels.map(\.slug)
            try require(!slugs.isEmpty, "the catalog is empty")
            try require(Set(slugs).count == slugs.count, "\(slugs.count - Set(slugs).count) funnels came twice")
            let sorted = listing.funnels.sorted(by: CatalogFunnel.catalogOrder)
            try require(sorted.map(\.slug) == slugs, "the pages are not in title-then-slug order")
            return listing.summary
        },
        Scenario(kit: "catalog", name: "a reload is served from the cache, then revalidated with 304s") { app in
            let first = try await app.loadCatalog()
            let requests = app.transport.count()
            let second = try await app.loadCatalog()
            try require(second.sources == [.cache: first.pageCount], "reload: \(second.summary)")
            try require(app.transport.count() == requests, "the fresh reload made \(app.transport.count() - requests) requests")
            app.clock.advance(by: 301)
            let third = try await app.loadCatalog()
            try require(third.sources == [.revalidated: first.pageCount], "stale reload: \(third.summary)")
            try require(third.funnels.map(\.slug) == first.funnels.map(\.slug), "the revalidated catalog differs")
            return "\(second.summary); 5 minutes later \(third.summary)"
        },
        Scenario(kit: "catalog", name: "a changed funnel gives a full page with a new ETag") { app in
            let before = try await app.catalog.page()
            guard let funnel = before.value.funnels.first, let eTag = before.headerFields[.eTag] else {
                throw ScenarioFailure(description: "the first page has no funnel or no ETag")
            }
            try await app.admin(.patch, "admin/funnels/\(funnel.slug)", json: #"{"isActive": \#(!(funnel.isActive ?? true))}"#)
            app.clock.advance(by: 301)
            let after = try await app.catalog.page()
            try await app.admin(.patch, "admin/funnels/\(funnel.slug)", json: #"{"isActive": \#(funnel.isActive ?? true)}"#)
            try require(after.source == .network, "the changed page came as \(after.source)")
            try require(after.headerFields[.eTag] != eTag, "the ETag did not change")
            try require(after.value.funnels.first?.isActive != funnel.isActive, "the change is not shown")
            return "\(eTag) → \(after.headerFields[.eTag] ?? "none")"
        },
        Scenario(kit: "catalog", name: "a deleted cursor funnel restarts the listing once, nothing skipped") { app in
            let first = try await app.catalog.page(limit: 10)
            guard let last = first.value.funnels.last else { throw ScenarioFailure(description: "the first page is empty") }
            let pillar = first.value.pillars.first { $0.funnels.contains { $0.slug == last.slug } }?.pillar.id
            try await app.admin(.delete, "admin/funnels/\(last.slug)")
            let listing: CatalogListing
            do {
                listing = try await app.catalog.allPages(limit: 10)
            } catch {
                try? await app.admin(.post, "admin/funnels", json: Self.funnelJSON(last, pillar: pillar))
                throw error
            }
            try await app.admin(.post, "admin/funnels", json: Self.funnelJSON(last, pillar: pillar))
            try require(listing.restarts == 1, "restarts: \(listing.restarts)")
            try require(!listing.funnels.contains { $0.slug == last.slug }, "the deleted funnel is listed")
            try require(Set(listing.funnels.map(\.slug)).count == listing.funnels.count, "a funnel came twice")
            return "INVALID_CURSOR after the cached page 1, then \(listing.summary)"
        },
        Scenario(kit: "catalog", name: "pull-to-refresh reaches the server, a filter change clears the catalog") { app in
            let model = CatalogListModel(client: app.catalog)
            await model.load()
            let requests = app.transport.count("/api/funnels/catalog")
            await model.refresh()
            await model.refresh()
            try require(app.transport.count("/api/funnels/catalog") == requests + 2, "a refresh did not reach the server")
            await model.setFilter(CatalogFilter(activeOnly: true, tier: "premium"))
            let shown = await model.current.listing.funnels
            try require(
                !shown.isEmpty && shown.allSatisfy { $0.isActive == true && $0.tier == "premium" },
                "the filtered list shows other funnels")
            let unfiltered = try? await app.catalog.page(policy: .returnCacheDataDontFetch)
            try require(unfiltered == nil, "the unfiltered page is still cached")
            return "2 refreshes, 2 requests; \(shown.count) active premium funnels on the first page"
        },
        Scenario(kit: "catalog", name: "a bad cursor and a bad limit are typed errors") { app in
            do {
                _ = try await app.catalog.page(cursor: "not-a-cursor")
                throw ScenarioFailure(description: "the bad cursor was accepted")
            } catch let error as CatalogError {
                guard case .invalidCursor = error else { throw ScenarioFailure(description: "got \(error)") }
            }
            let requests = app.transport.count()
            do {
                _ = try await app.catalog.page(limit: 101)
                throw ScenarioFailure(description: "limit 101 was accepted")
            } catch CatalogError.invalidLimit(101) {
                try require(app.transport.count() == requests, "limit 101 was sent")
            }
            return "INVALID_CURSOR from the server; limit 101 refused before any request"
        },
    ]

    /// The admin body that puts a deleted funnel back.
    static func funnelJSON(_ funnel: CatalogFunnel, pillar: String?) -> String {
        let object: JSONValue = .object([
            "slug": .string(funnel.slug), "title": .string(funnel.title),
            "pillarId": pillar.map(JSONValue.string) ?? .null, "isActive": .bool(funnel.isActive ?? true),
            "tier": .string(funnel.tier ?? "free"),
        ])
        return String(decoding: object.serialized(), as: UTF8.self)
    }

    static let sessionScenarios: [Scenario] = [
        Scenario(kit: "session", name: "a wrong password is refused with 401, the right one signs in") { app in
            do {
                try await app.signIn(password: "Wrong1234")
                throw ScenarioFailure(description: "the wrong password signed in")
            } catch let error as SignInError {
                guard case .rejected = error else { throw ScenarioFailure(description: "got \(error)") }
            }
            let user = try await app.signIn()
            return "401, then signed in as \(user)"
        },
        Scenario(kit: "session", name: "a session the server expires leads to one 401 and empty caches") { app in
            let user = try await app.signIn()
            _ = try await app.graphQL.fetch(DashboardQuery())
            _ = try await app.loadCatalog()
            try await app.admin(.post, "admin/sessions/\(user)/expire")
            do {
                _ = try await app.graphQL.fetch(DashboardQuery(), policy: .fetchIgnoringCacheData)
                throw ScenarioFailure(description: "the expired session still worked")
            } catch let error as APIError {
                guard case .unauthorized = error else { throw ScenarioFailure(description: "got \(error)") }
            }
            let state = await app.waitForSession { $0.expiry != nil }
            try require(state != nil, "the session did not expire")
            let left = await app.entryCount()
            try require(left == 0, "\(left) entries left after the expiry")
            try require(await app.session.currentCredentials() == nil, "the token is still handed out")
            return "401 → expired once, every cache cleared, token gone"
        },
    ]

    static let sessionLaunchScenarios: [Scenario] = [
        Scenario(
            kit: "session",
            name: "a relaunch validates the stored token, even after the system purged the caches; after logout it starts signed out"
        ) { app in
            let user = try await app.signIn()
            try require(
                !app.tokenFile.path.hasPrefix(app.environment.cachesDirectory.path + "/"),
                "the token is kept under the caches folder, which the system may purge")
            // The system may purge the caches folder whenever it likes: the session survives it.
            _ = try await app.loadCatalog()
            try FileManager.default.removeItem(at: app.environment.cachesDirectory)
            let relaunched = try DemoComposition(
                baseURL: app.baseURL, cachesDirectory: app.environment.cachesDirectory, transport: app.makeTransport,
                logger: DemoComposition.quietLogger)
            await relaunched.composition.launch(offlineFirst: false)
            try require(relaunched.session.current.user?.userId == user, "relaunch: \(relaunched.session.current)")
            await relaunched.session.logOut()
            let afterLogout = try DemoComposition(
                baseURL: app.baseURL, cachesDirectory: app.environment.cachesDirectory, transport: app.makeTransport,
                logger: DemoComposition.quietLogger)
            await afterLogout.composition.launch(offlineFirst: false)
            try require(afterLogout.session.current == .signedOut, "after logout: \(afterLogout.session.current)")
            return "signed in as \(user) again at launch after a caches purge; signed out after logout"
        },
        Scenario(kit: "session", name: "a relaunch draws the first screen its user last saw before anything is built; logout drops it") {
            app in
            try await app.signIn()
            let shown = try await app.composition.firstScreen()
            let caches = app.environment.cachesDirectory
            let support = app.tokenFile.deletingLastPathComponent().deletingLastPathComponent()
            let last = Composition.lastFirstScreen(cachesDirectory: caches, supportDirectory: support)
            try require(
                last?.value == FirstScreen(catalog: shown.catalog.value, dashboard: shown.dashboard.value),
                "the relaunch's first frame is not the screen last shown")
            _ = await app.logOut()
            try require(
                Composition.lastFirstScreen(cachesDirectory: caches, supportDirectory: support) == nil, "a snapshot outlived the logout")
            return "the last first screen drawn from its snapshot, none after logout"
        },
        Scenario(kit: "session", name: "a logout the server fails still clears every cache") { app in
            try await app.signIn()
            _ = try await app.graphQL.fetch(DashboardQuery())
            try await app.admin(.put, "admin/faults", json: #"[{"pathPrefix":"/auth/logout","status":500}]"#)
            let (report, _) = await app.logOut()
            try await app.admin(.delete, "admin/faults")
            let left = await app.entryCount()
            try require(report.isComplete && left == 0, "\(left) entries left, failures \(report.failed)")
            try require(app.session.current == .signedOut, "state \(app.session.current)")
            return "server 500, every cache cleared, token deleted"
        },
    ]

    static let accountsScenarios: [Scenario] = [
        Scenario(kit: "accounts", name: "a payment updates the balance everywhere") { app in
            try await app.signIn()
            let before = try await app.balance()
            let details = try await app.accounts.account(id: "100").value
            let dashboard = try await app.accounts.dashboard().value
            _ = try await app.accounts.recentTransactions(accountId: "100")
            let requests = app.transport.count("/graphql")
            let check = try await app.accounts.checkFunds(accountId: "100", amount: 1)
            try require(check.isSufficient && check.available == before, "funds check: \(check)")
            let receipt = try await app.accounts.makePayment(accountId: "100", amount: 1)
            let critical = Set(receipt.critical.map(\.query))
            try require(critical == ["AccountBalance", "RecentTransactions"], "critical refetches: \(critical)")
            // Every screen reads Account:100, so the new balance is there at once, with no request.
            let after = try await app.balance(policy: .returnCacheDataDontFetch)
            let card = try await app.accounts.account(id: "100", policy: .returnCacheDataDontFetch).value
            try require(
                after == before - 1 && card.balance == after && details.balance == before,
                "balance \(before) → \(after), account card \(card.balance)")
            let recent = try await app.accounts.recentTransactions(accountId: "100", policy: .returnCacheDataDontFetch).value
            try require(recent.first?.id == receipt.transaction.id, "the new transaction is not first in the recent list")
            let background = await receipt.background?.value.map(\.query) ?? []
            let total = try await app.accounts.dashboard(policy: .returnCacheDataDontFetch).value.totalBalance
            try require(total == dashboard.totalBalance - 1, "dashboard total \(dashboard.totalBalance) → \(total)")
            return "balance \(before) → \(after) everywhere; \(app.transport.count("/graphql") - requests) GraphQL requests "
                + "(funds check, payment, \(receipt.critical.count) critical, \(background.count) background)"
        },
        Scenario(kit: "accounts", name: "insufficient funds and an unknown account are typed errors") { app in
            try await app.signIn()
            do {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 1_000_000_000)
                throw ScenarioFailure(description: "a payment beyond the balance went through")
            } catch AccountsError.insufficientFunds(accountId: "100") {}
            do {
                _ = try await app.accounts.makePayment(accountId: "999", amount: 1)
                throw ScenarioFailure(description: "a payment from an unknown account went through")
            } catch AccountsError.unknownAccount("999") {}
            return "INSUFFICIENT_FUNDS and UNKNOWN_ACCOUNT, each its own case"
        },
        Scenario(kit: "accounts", name: "switching account clears that account's data and keeps the other's") { app in
            try await app.signIn()
            _ = try await app.balance(of: "100")
            _ = try await app.balance(of: "1002")
            _ = await app.unified.clearCache(forAccountId: "100")
            let gone = (try? await app.balance(of: "100", policy: .returnCacheDataDontFetch)) == nil
            let kept = (try? await app.balance(of: "1002", policy: .returnCacheDataDontFetch)) != nil
            try require(gone && kept, "account 100 \(gone ? "cleared" : "still cached"), 1002 \(kept ? "kept" : "gone")")
            return "100 cleared, 1002 kept"
        },
        Scenario(kit: "accounts", name: "a payment the server fails leaves the cache as it was") { app in
            try await app.signIn()
            let before = try await app.balance()
            try await app.admin(.put, "admin/faults", json: #"[{"pathPrefix":"/graphql","status":500}]"#)
            let outcome: String
            do {
                _ = try await app.accounts.makePayment(accountId: "100", amount: 1)
                outcome = "the payment succeeded"
            } catch {
                outcome = "\(error)"
            }
            try await app.admin(.delete, "admin/faults")
            let after = try await app.balance(policy: .returnCacheDataDontFetch)
            try require(outcome != "the payment succeeded", "the payment succeeded despite the fault")
            try require(after == before, "the cached balance moved from \(before) to \(after)")
            return "typed error (\(outcome.prefix(60))), balance still \(after)"
        },
    ]

    static let logoutScenarios: [Scenario] = [
        Scenario(kit: "logout", name: "after logout nothing of the user can be read from any cache") { app in
            try await app.signIn()
            _ = try await app.loadCatalog()
            _ = try await app.graphQL.fetch(DashboardQuery())
            _ = try await app.balance()
            let before = await app.entryCount()
            let (report, duration) = await app.logOut()
            try require(report.isComplete, "clearing failed: \(report.failed)")
            let left = await app.entryCount()
            try require(left == 0, "\(left) entries left")
            let balance = try? await app.balance(policy: .returnCacheDataDontFetch)
            try require(balance == nil, "the balance is still readable")
            return "\(before) entries → 0, logout took \(duration.milliseconds) ms"
        }
    ]
}
