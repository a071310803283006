import APICoreOffline
import CacheKit
import ContactsKit
import Foundation
import MIBApp

// ContactsKit: the offline storage specification's "what works offline" and "what requires connectivity"
// tables, against the reference backend's 10,000 contacts.

extension EndToEnd {
    static let contactsScenarios: [Scenario] = [
        Scenario(
            kit: "contacts",
            name: "works offline: the contact list, a contact's detail, circles and members, the score with its 30 days, search"
        ) { app in
            try await app.signIn()
            let synced = await app.contacts.syncNow()
            try require(
                synced.isComplete && synced.mode == .full,
                "the first sync \(synced.outcome.rawValue): \(synced.error.map { "\($0)" } ?? "")")
            let (list, detail, circles, score, found) = try await whileOffline(app) {
                let list = try await app.contacts.contacts(limit: 50)
                let detail = try await app.contacts.contact(id: "c42")
                let circles = try await app.contacts.circles()
                let score = try await app.contacts.score()
                let found = try await app.contacts.search("zoe mar")
                return (list, detail, circles, score, found)
            }
            try require(
                list.value.total == synced.counts["contacts"] && list.value.contacts.count == 50, "the list holds \(list.value.total)")
            try require(detail.value?.id == "c42", "no detail for c42")
            try require(
                circles.value.count == 5 && circles.value.map(\.memberCount).reduce(0, +) == list.value.total,
                "circles \(circles.value.count)")
            try require(score.value?.history.count == 30, "the score's history holds \(score.value?.history.count ?? 0) days")
            try require(found.total > 0 && found.contacts.allSatisfy { $0.displayName.hasPrefix("Zoë") }, "search found \(found.total)")
            return "\(list.value.total) contacts synced in \(synced.requests) requests; offline: list, detail, 5 circles, "
                + "score \(score.value?.value ?? 0) with 30 days, \(found.total) found for \"zoe mar\""
        },
        Scenario(
            kit: "contacts",
            name:
                "requires connectivity: an edit and a dismissed suggestion are queued and applied once; subscribing says connect to purchase"
        ) { app in
            try await app.signIn()
            _ = await app.contacts.syncNow()
            let suggestion = try unwrap(try await app.contacts.suggestions().value.first, "no pending suggestion")
            let refused = try await whileOffline(app) {
                try await app.contacts.rename(contactId: "c7", to: "Renamed Offline")
                try await app.contacts.dismissSuggestion(id: suggestion.id)
                await app.queue.stop()
                do {
                    try await app.contacts.subscribePremium()
                    return "subscribed offline"
                } catch {
                    return error.localizedDescription
                }
            }
            try require(refused == "Connect to purchase.", "subscribing offline: \(refused)")
            try require(try await app.contacts.contact(id: "c7").value?.displayName == "Renamed Offline", "the edit is not shown at once")
            let replay = await app.queue.replay()
            let again = await app.queue.replay()
            try require(replay.sent == 2 && again.sent == 0, "sent \(replay.sent), then \(again.sent)")
            let synced = await app.contacts.syncNow()
            let shown = try await app.contacts.contact(id: "c7").value?.displayName
            let pending = try await app.contacts.suggestions().value.map(\.id)
            try require(synced.mode == .incremental && shown == "Renamed Offline", "after the sync c7 is \(shown ?? "gone")")
            try require(!pending.contains(suggestion.id), "the dismissed suggestion came back")
            return "2 changes queued offline, sent once (\(synced.requests) requests to sync back); \"\(refused)\""
        },
    ]
}
