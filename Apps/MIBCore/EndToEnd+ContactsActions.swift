import APICore
import APICoreOffline
import APICoreREST
import CacheKit
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp

// ContactsKit: one scenario per action the kit gained for app teams (each made offline, shown at once, sent
// once, its handle moving to sent) and per rule of freshness that refreshes (on the app's clock).

extension EndToEnd {
    static let contactsActionScenarios: [Scenario] = [
        Scenario(kit: "contacts", name: "offline: create, edit and delete a contact, each shown at once and sent once") { app in
            _ = try await syncedContacts(app)
            var handles: [ContactsChange] = []
            let sent = try await changedOffline(app) {
                handles.append(try await app.contacts.createContact(name: "Nadia Offline", phones: ["+33 1 23 45 67 89"]))
                handles.append(
                    try await app.contacts.editContact(id: "c2", ContactEdit(phones: ["+1 555 0199"], emails: ["new@example.com"])))
                handles.append(try await app.contacts.deleteContact(id: "c3"))
            }
            try await settled(app, handles)
            _ = await app.contacts.syncNow()
            let created = try await app.contacts.contact(id: handles[0].recordId ?? "").value
            let edited = try await app.contacts.contact(id: "c2").value
            try require(sent == 3 && created?.displayName == "Nadia Offline", "sent \(sent); created: \(created?.displayName ?? "none")")
            let deleted = try await app.contacts.contact(id: "c3").value
            try require(edited?.phones == ["+1 555 0199"] && deleted == nil, "after the sync: c2 \(edited?.phones ?? []), c3 kept")
            return "created, edited and deleted offline; sent once each; the server agrees"
        },
        Scenario(kit: "contacts", name: "offline: add a contact to a circle and remove another, the member counts following") { app in
            _ = try await syncedContacts(app)
            let before = try await app.contacts.circles().value.first { $0.id == "circle-2" }?.memberCount ?? -1
            let outsider = try await app.contacts.contacts(limit: 500).value.contacts.first { !$0.circles.contains("circle-2") }
            let member = try await app.contacts.members(ofCircle: "circle-2").value.first
            guard let outsider, let member else { throw ScenarioFailure(description: "no contact to move") }
            var handles: [ContactsChange] = []
            let sent = try await changedOffline(app) {
                handles.append(try await app.contacts.addContact(outsider.id, toCircle: "circle-2"))
                handles.append(try await app.contacts.removeContact(member.id, fromCircle: "circle-2"))
                let shown = try await app.contacts.members(ofCircle: "circle-2").value.map(\.id)
                try require(shown.contains(outsider.id) && !shown.contains(member.id), "members offline: \(shown.count)")
            }
            try await settled(app, handles)
            _ = await app.contacts.syncNow()
            let after = try await app.contacts.circles().value.first { $0.id == "circle-2" }?.memberCount ?? -1
            try require(sent == 2 && after == before, "sent \(sent); members \(before) then \(after)")
            return "one in, one out of circle-2, offline; \(after) members on the server as on the device"
        },
        Scenario(kit: "contacts", name: "offline: a circle's emoji and colour") { app in
            _ = try await syncedContacts(app)
            let handle = try await changedOfflineReturning(app) {
                try await app.contacts.restyleCircle(id: "circle-3", emoji: "🎸", color: "#FF8800")
            }
            try await settled(app, [handle])
            _ = await app.contacts.syncNow()
            let circle = try await app.contacts.circles().value.first { $0.id == "circle-3" }
            try require(circle?.emoji == "🎸" && circle?.color == "#FF8800", "circle-3: \(circle?.emoji ?? "") \(circle?.color ?? "")")
            return "circle-3 restyled offline: 🎸 #FF8800, sent once"
        },
        Scenario(kit: "contacts", name: "freshness: a list read past a day starts an incremental sync in the background") { app in
            _ = try await syncedContacts(app)
            try await serverRename(app, "c7", to: "Renamed on the server")
            app.clock.advance(by: 86_401)
            _ = try await app.contacts.contacts()
            try await eventually("the background sync") {
                try await listed(app, "c7") == "Renamed on the server"
            }
            return "a day and a second later, the list read started a sync that brought c7's new name"
        },
        Scenario(kit: "contacts", name: "freshness: a contact's detail past an hour is fetched again") { app in
            _ = try await syncedContacts(app)
            try await serverRename(app, "c8", to: "Fetched again")
            app.clock.advance(by: 3_601)
            let shown = try await app.contacts.contact(id: "c8").value?.displayName
            try await eventually("the refetch") { try await app.contacts.contact(id: "c8").value?.displayName == "Fetched again" }
            return "shown at once as \(shown ?? "?"), then refetched: Fetched again"
        },
        Scenario(kit: "contacts", name: "freshness: a push refetches the contacts it names") { app in
            _ = try await syncedContacts(app)
            try await serverRename(app, "c9", to: "Pushed")
            try await app.contacts.invalidate(contactIds: ["c9"])
            try require(try await app.contacts.contact(id: "c9").value?.displayName == "Pushed", "c9 not refetched")
            return "c9 refetched on the push"
        },
        Scenario(kit: "contacts", name: "freshness: back in the foreground after more than an hour, the address book syncs") { app in
            _ = try await syncedContacts(app)
            try await serverRename(app, "c10", to: "While away")
            app.lifecycle.didEnterBackground()
            app.clock.advance(by: 3_601)
            try require(await app.lifecycle.willEnterForeground(), "not a long absence")
            try await eventually("the sync") { try await listed(app, "c10") == "While away" }
            return "an hour and a second away: synced in the background on return"
        },
    ]

    /// Runs `change` offline and returns its handle (see ``changedOffline(_:_:)``).
    static func changedOfflineReturning(_ app: DemoComposition, _ change: () async throws -> ContactsChange) async throws -> ContactsChange
    {
        var handle: ContactsChange?
        _ = try await changedOffline(app) { handle = try await change() }
        guard let handle else { throw ScenarioFailure(description: "no change made") }
        return handle
    }

    /// Waits until every handle says sent (the app's queue follower settles them as the queue drains).
    static func settled(_ app: DemoComposition, _ handles: [ContactsChange]) async throws {
        for handle in handles {
            try await eventually("\(handle.mutation) sent") { try await app.contacts.changeState(handle) == .sent }
        }
    }

    /// A contact's name as the list shows it (a detail read past its hour would fetch the contact on its own).
    /// The name the device's address book holds for `id`, read from the store (no refetch of a stale detail,
    /// and at any size: a list's first page at 10,000 contacts does not reach "Renamed…").
    static func listed(_ app: DemoComposition, _ id: String) async throws -> String? {
        try app.contacts.store.contact(userId: try await app.contacts.currentUserId(), id: id)?.displayName
    }

    /// Renames a contact on the server, as another device of the user would.
    static func serverRename(_ app: DemoComposition, _ id: String, to name: String) async throws {
        _ = try await app.rest.send(
            APIRequest<Data>(
                method: .patch, path: PathSegments.path("contacts", id), headerFields: [.contentType: "application/json"],
                body: JSONValue.object(["displayName": .string(name)]).serialized()),
            policy: .fetchIgnoringCacheCompletely)
    }

    /// Polls `condition` until it holds, under the scenarios' deadline (``withDeadline(_:_:_:)``: ten seconds).
    static func eventually(_ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
        try await withDeadline(.seconds(10), what) {
            while try await !condition() { try await Task.sleep(for: .milliseconds(10)) }
        }
    }
}
