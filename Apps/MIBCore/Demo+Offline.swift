import APICore
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import Foundation
import HTTPTypes
import Logging
import MIBApp
import SessionKit

// The demo's offline chapter.
extension Story {
    /// Offline: the network goes, the screens keep their last known data with its age, favorites
    /// wait in the queue, a payment is refused; the network returns and the queue drains once.
    func offlineChapter() async throws {
        _ = try await app.catalog.page()
        _ = try await app.accounts.balance(accountId: "100")
        try await app.admin(.put, "admin/faults", json: EndToEnd.offlineFaults)
        do {
            clock.advance(by: 2 * 3_600)
            try await step("Offline, two hours later: open the catalog and the balance") {
                let model = CatalogListModel(client: app.catalog)
                await model.load()
                let balance = try await app.accounts.balance(accountId: "100")
                return "catalog \(await model.current.status?.label ?? "no label"); balance \(Self.euros(balance.value.amount)), "
                    + (balance.status.label ?? "fresh") + "; connectivity \(app.connectivity.status.rawValue)"
            }
            try await step("Offline: favorite two funnels, and try to pay") {
                try await app.favorites.setFavorite("funnel-3", true)
                try await app.favorites.setFavorite("funnel-7", true)
                let pending = await app.queue.states().first { _ in true }
                let payment: String
                do {
                    _ = try await app.accounts.makePayment(accountId: "100", amount: 100)
                    payment = "the payment went through"
                } catch {
                    payment = "payment refused: \(error)"
                }
                return "\(pending?.pendingCount ?? 0) queued (\(pending?.message ?? "")); \(payment)"
            }
        } catch {
            try? await app.admin(.delete, "admin/faults")
            throw error
        }
        try await app.admin(.delete, "admin/faults")
        try await step("Back online: the queue sends what it holds by itself") {
            try await EndToEnd.drained(app)
            let favorites = try await app.favorites.favorites().value
            return "nothing left queued; favorites on the server: \(favorites.joined(separator: ", "))"
        }
    }
}
