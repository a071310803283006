import APICoreOffline
import CacheKit
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp

// The demo's contacts chapter: the offline storage specification's app, end to end.
extension Story {
    /// Contacts: a full sync of the address book watched by an observed list, the network goes, search and
    /// an edit work offline (the row marked pending), the network returns, the queue drains (the mark
    /// clears), and an incremental sync brings the server's state back.
    func contactsChapter() async throws {
        let totals = Locked<[Int]>([])
        let observing = Task { [app] in
            for try await reading in try await app.contacts.observeContacts(limit: 50) {
                totals.withLock { $0.append(reading.value.total) }
            }
        }
        defer { observing.cancel() }
        try await step("Contacts: the first sync of the address book, an observed list of 50 following it") {
            let report = await app.contacts.syncNow()
            let file = app.contacts.store.fileURL(for: try await app.contacts.currentUserId())
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            let all = report.counts["contacts"] ?? 0
            try await EndToEnd.eventually("the observed list's last page") { totals.withLock { $0.last } == all }
            let seen = totals.withLock { $0 }
            return
                "\(report.mode?.rawValue ?? "-") sync: \(all) contacts, \(report.counts["circles"] ?? 0) circles, "
                + "\(report.counts["suggestions"] ?? 0) suggestions in \(report.requests) requests; \(bytes / 1_024) KB on disk; "
                + "the observed list updated \(seen.count - 1) times as pages landed (\(seen.map(String.init).joined(separator: " → ")))"
        }
        let renamed = Locked<ContactsChange?>(nil)
        try await app.admin(.put, "admin/faults", json: EndToEnd.offlineFaults)
        do {
            try await step("Contacts offline: search \"zoe mar\" and \"(200) 000\", open the score, rename a contact") {
                let byName = try await app.contacts.search("zoe mar", limit: 3)
                let byPhone = try await app.contacts.search("(200) 000", limit: 1)
                let score = try await app.contacts.score()
                let change = try await app.contacts.rename(contactId: "c1", to: "Ana (renamed offline)")
                renamed.withLock { $0 = change }
                let queued = await app.queue.pending().count
                let pending = try await app.contacts.contact(id: "c1").value?.hasPendingChange == true
                return "\(byName.total) found (\(byName.contacts.map(\.displayName).joined(separator: ", "))); "
                    + "\(byPhone.contacts.first?.displayName ?? "none") by phone; score \(score.value?.value ?? 0) with "
                    + "\(score.value?.history.count ?? 0) days; \(queued) change queued, c1 \(pending ? "marked" : "not marked") "
                    + "\"Will sync when online\""
            }
        } catch {
            try? await app.admin(.delete, "admin/faults")
            throw error
        }
        try await app.admin(.delete, "admin/faults")
        try await step("Contacts back online: the queue drains by itself (the pending mark clears), then an incremental sync") {
            try await EndToEnd.drained(app)
            if let change = renamed.withLock({ $0 }) {
                try await EndToEnd.eventually("the rename sent") { [app] in try await app.contacts.changeState(change) == .sent }
            }
            let cleared = try await app.contacts.contact(id: "c1").value?.hasPendingChange == false
            let report = await app.contacts.syncNow()
            let shown = try await app.contacts.contact(id: "c1").value?.displayName ?? "gone"
            return "the rename's state sent and c1's mark \(cleared ? "cleared" : "still shown"); "
                + "\(report.mode?.rawValue ?? "-") sync in \(report.requests) requests; c1 is \"\(shown)\""
        }
    }
}
