import APICoreOffline
import APICoreREST
import CacheKit
import ContactsKit
import Foundation
import MIBApp

// ContactsKit: one scenario per row of the offline storage specification's "What works offline" and "What
// requires connectivity" tables that the kit implements, against the reference backend's contacts.

extension EndToEnd {
    static let contactsScenarios: [Scenario] = contactsOfflineScenarios + contactsConnectivityScenarios + contactsActionScenarios

    /// Signs in and runs the first (full) sync.
    static func syncedContacts(_ app: DemoComposition) async throws -> SyncReport {
        try await app.signIn()
        let synced = await app.contacts.syncNow()
        try require(
            synced.isComplete && synced.mode == .full, "the first sync \(synced.outcome.rawValue): \(synced.error.map { "\($0)" } ?? "")")
        return synced
    }

    /// Runs `change` offline (queued, shown at once), then lets the network return and waits until the
    /// queue, started by the sign-in, has sent everything by itself; returns how many changes were queued.
    static func changedOffline(_ app: DemoComposition, _ change: () async throws -> Void) async throws -> Int {
        let queued = try await whileOffline(app) {
            try await change()
            return await app.queue.pending().count
        }
        try require(queued > 0, "nothing was queued")
        try await drained(app)
        return queued
    }

    static let contactsOfflineScenarios: [Scenario] = [
        Scenario(kit: "contacts", name: "offline: view contact list, cached data displayed") { app in
            let synced = try await syncedContacts(app)
            let list = try await whileOffline(app) { try await app.contacts.contacts(limit: 50) }
            try require(
                list.value.total == synced.counts["contacts"] && list.value.contacts.count == 50, "the list holds \(list.value.total)")
            return "\(list.value.total) contacts synced in \(synced.requests) requests, shown offline"
        },
        Scenario(kit: "contacts", name: "offline: view contact detail, cached data displayed") { app in
            _ = try await syncedContacts(app)
            let detail = try await whileOffline(app) { try await app.contacts.contact(id: "c42") }
            try require(
                detail.value?.id == "c42" && detail.label == nil,
                "c42: \(detail.value?.displayName ?? "none"), label \(detail.label ?? "-")")
            return "\(detail.value?.displayName ?? ""), \(detail.value?.phones.first ?? ""), no label while fresh"
        },
        Scenario(kit: "contacts", name: "offline: view circles and members, cached data displayed") { app in
            let synced = try await syncedContacts(app)
            let circles = try await whileOffline(app) { try await app.contacts.circles() }
            let members = circles.value.map(\.memberCount).reduce(0, +)
            try require(
                circles.value.count == 5 && members == synced.counts["contacts"], "\(circles.value.count) circles, \(members) members")
            return circles.value.map { "\($0.emoji ?? "") \($0.name) \($0.memberCount)" }.joined(separator: ", ")
        },
        Scenario(kit: "contacts", name: "offline: view the score, cached with when it was last updated") { app in
            _ = try await syncedContacts(app)
            app.clock.advance(by: 25 * 3_600)
            let score = try await whileOffline(app) { try await app.contacts.score() }
            try require(
                score.value != nil && score.syncedAt != nil && score.label == "Estimated · last updated 1 d ago",
                "score label \(score.label ?? "none")")
            return "score \(score.value?.value ?? 0), synced 25 h ago: \"\(score.label ?? "")\""
        },
        Scenario(kit: "contacts", name: "offline: view score history, the cached 30-day sparkline") { app in
            _ = try await syncedContacts(app)
            let score = try await whileOffline(app) { try await app.contacts.score() }
            let history = score.value?.history ?? []
            try require(history.count == 30, "the history holds \(history.count) days")
            return "\(history.first?.day ?? "") to \(history.last?.day ?? ""): " + history.map { String($0.value) }.joined(separator: " ")
        },
        Scenario(kit: "contacts", name: "offline: search contacts, local search over cached contacts") { app in
            _ = try await syncedContacts(app)
            let (byName, byPhone) = try await whileOffline(app) {
                (try await app.contacts.search("zoe mar"), try await app.contacts.search("(200) 000-0000"))
            }
            try require(
                byName.total > 0 && byName.contacts.allSatisfy { $0.displayName.hasPrefix("Zoë") }, "\"zoe mar\" found \(byName.total)")
            try require(byPhone.contacts.first?.id == "c0", "the phone number found \(byPhone.contacts.map(\.id))")
            return "\(byName.total) for \"zoe mar\" (\(byName.contacts.first?.displayName ?? "")), c0 by its phone number"
        },
        Scenario(kit: "contacts", name: "offline: view profile, cached profile data") { app in
            _ = try await syncedContacts(app)
            let profile = try await whileOffline(app) { try await app.contacts.profile() }
            let value = try unwrap(profile.value, "no profile on the device")
            try require(!value.displayName.isEmpty && value.shadowProfiles.count == 2, "profile \(value)")
            return "\(value.displayName), \(value.shadowProfiles.count) shadow profiles, \(value.activeProfile) active"
        },
    ]

    static let contactsConnectivityScenarios: [Scenario] = [
        Scenario(kit: "contacts", name: "needs the network: import contacts, queued, resumes when online") { app in
            _ = try await syncedContacts(app)
            var imported: [Contact] = []
            let sent = try await changedOffline(app) {
                imported = try await app.contacts.importDeviceContacts([
                    ContactDraft(deviceId: "device-ada", displayName: "Imported Ada", phones: ["+44 20 7946 0000"]),
                    ContactDraft(deviceId: "device-alan", displayName: "Imported Alan"),
                ])
                try require(try await app.contacts.search("imported").total == 2, "the imports are not shown at once")
            }
            let synced = await app.contacts.syncNow()
            try require(sent == 1 && synced.counts["contacts"] == 2, "sent \(sent); the sync brought \(synced.counts)")
            return "2 imported offline, sent in 1 request once online; the next sync brought back \(imported.map(\.displayName))"
        },
        Scenario(kit: "contacts", name: "needs the network: edit a contact or a circle, queued in the mutation queue") { app in
            _ = try await syncedContacts(app)
            let sent = try await changedOffline(app) {
                try await app.contacts.rename(contactId: "c7", to: "Renamed Offline")
                try await app.contacts.renameCircle(id: "circle-3", to: "Colleagues")
                try require(
                    try await app.contacts.contact(id: "c7").value?.displayName == "Renamed Offline", "the edit is not shown at once")
            }
            _ = await app.contacts.syncNow()
            let circle = try await app.contacts.circles().value.first { $0.id == "circle-3" }
            try require(sent == 2 && circle?.name == "Colleagues", "sent \(sent), circle-3 is \(circle?.name ?? "gone")")
            try require(try await app.contacts.contact(id: "c7").value?.displayName == "Renamed Offline", "the server lost the edit")
            return "c7 and circle-3 renamed offline, sent once each, the same after the next sync"
        },
        Scenario(kit: "contacts", name: "needs the network: resolve a duplicate suggestion, queued in the mutation queue") { app in
            _ = try await syncedContacts(app)
            let suggestion = try unwrap(try await app.contacts.suggestions().value.first, "no pending suggestion")
            let sent = try await changedOffline(app) { try await app.contacts.resolveSuggestion(id: suggestion.id) }
            _ = await app.contacts.syncNow()
            let pending = try await app.contacts.suggestions().value.map(\.id)
            try require(sent == 1 && !pending.contains(suggestion.id), "sent \(sent); still pending: \(pending.contains(suggestion.id))")
            return "\(suggestion.contactA) and \(suggestion.contactB) resolved offline, sent once; \(pending.count) still pending"
        },
        Scenario(kit: "contacts", name: "needs the network: change access policies, queued in the mutation queue") { app in
            _ = try await syncedContacts(app)
            let sent = try await changedOffline(app) {
                try await app.contacts.setAccessPolicy(circleId: "circle-2", field: "phone", audience: .nobody)
            }
            _ = await app.contacts.syncNow()
            let policy = try await app.contacts.circles().value.first { $0.id == "circle-2" }?.accessPolicies["phone"]
            try require(sent == 1 && policy == .nobody, "sent \(sent); phone is \(policy?.rawValue ?? "unset")")
            return "circle-2's phone numbers hidden offline, sent once, kept by the server"
        },
        Scenario(kit: "contacts", name: "needs the network: create or delete a circle, queued in the mutation queue") { app in
            _ = try await syncedContacts(app)
            var created: ContactCircle?
            let sentCreate = try await changedOffline(app) { created = try await app.contacts.createCircle(name: "Climbing", emoji: "🧗") }
            let circle = try unwrap(created, "no circle created")
            _ = await app.contacts.syncNow()
            try require(try await app.contacts.circles().value.contains { $0.id == circle.id }, "the server has no new circle")
            let sentDelete = try await changedOffline(app) { try await app.contacts.deleteCircle(id: circle.id) }
            _ = await app.contacts.syncNow()
            let names = try await app.contacts.circles().value.map(\.name)
            try require(sentCreate == 1 && sentDelete == 1 && !names.contains("Climbing"), "circles after deleting: \(names)")
            return "Climbing created offline, then deleted offline, each sent once"
        },
        Scenario(kit: "contacts", name: "needs the network: view enrichment data, cached first if seen, an Offline badge if not") { app in
            _ = try await syncedContacts(app)
            let online = try await app.contacts.enrichment(of: "c5")
            try require(online.value != nil && online.label == nil, "online: \(online.label ?? "no label")")
            app.clock.advance(by: 3 * 3_600)
            let (seen, unseen) = try await whileOffline(app) {
                (try await app.contacts.enrichment(of: "c5"), try await app.contacts.enrichment(of: "c6"))
            }
            try require(
                seen.value == online.value && seen.label == "Last updated 3 h ago", "seen before: \(seen.label ?? "none")")
            try require(unseen.value == nil && unseen.label == "Offline", "never seen: \(unseen.label ?? "none")")
            return
                "c5 (\(online.value?.company ?? ""), \(online.value?.title ?? "")) offline: \"\(seen.label ?? "")\"; c6: \"\(unseen.label ?? "")\""
        },
        Scenario(kit: "contacts", name: "needs the network: subscribe to premium is blocked offline, connect to purchase") { app in
            _ = try await syncedContacts(app)
            let refused = try await whileOffline(app) {
                do {
                    try await app.contacts.subscribePremium()
                    return "subscribed offline"
                } catch {
                    return error.localizedDescription
                }
            }
            let queued = await app.queue.pending().count
            // A dropped connection leaves the purchase's outcome unknown; no connection at all, "Connect to purchase".
            let expected = [ContactsError.requiresConnection, .purchaseOutcomeUnknown].map(\.localizedDescription)
            try require(expected.contains(refused) && queued == 0, "offline: \(refused), \(queued) queued")
            try await app.contacts.subscribePremium()
            try require(try await app.contacts.hasUnconfirmedPurchase() == false, "the purchase is still unconfirmed online")
            return "offline: \"\(refused)\", nothing queued; online it goes through, once"
        },
        Scenario(kit: "contacts", name: "needs the network: switch shadow profile, cached profiles available, the switch queued") { app in
            _ = try await syncedContacts(app)
            let sent = try await changedOffline(app) {
                let profiles = try unwrap(try await app.contacts.profile().value, "no profile offline").shadowProfiles.map(\.id)
                try require(profiles.contains("work"), "offline the profiles are \(profiles)")
                try await app.contacts.switchProfile(to: "work")
                try require(try await app.contacts.profile().value?.activeProfile == "work", "the switch is not shown at once")
            }
            _ = await app.contacts.syncNow()
            let active = try await app.contacts.profile().value?.activeProfile
            try require(sent == 1 && active == "work", "sent \(sent); the server says \(active ?? "nothing")")
            return "switched to work offline, sent once, kept by the server"
        },
        Scenario(kit: "contacts", name: "needs the network: file a dispute, queued in the mutation queue") { app in
            _ = try await syncedContacts(app)
            let sent = try await changedOffline(app) {
                try await app.contacts.fileDispute(reason: "My trust score dropped after the merge")
            }
            let disputes = String(
                decoding: try await app.rest.send(
                    APIRequest<Data>(path: "/disputes", feature: "e2e"), policy: .fetchIgnoringCacheCompletely
                ).value,
                as: UTF8.self)
            try require(
                sent == 1 && disputes.contains("My trust score dropped after the merge"), "sent \(sent); the server has \(disputes)")
            return "filed offline, sent once, on the server"
        },
    ]
}
