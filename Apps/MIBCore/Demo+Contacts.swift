import APICoreOffline
import CacheKit
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp

// The demo's contacts chapter: the offline storage specification's app, end to end.
extension Story {
    /// Contacts: a full sync of the address book, the network goes, search and an edit work offline, the
    /// network returns, the queue drains, and an incremental sync brings the server's state back.
    func contactsChapter() async throws {
        try await step("Contacts: the first sync of the address book") {
            let report = await app.contacts.syncNow()
            let file = app.contacts.store.fileURL(for: try await app.contacts.currentUserId())
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            return
                "\(report.mode?.rawValue ?? "-") sync: \(report.counts["contacts"] ?? 0) contacts, \(report.counts["circles"] ?? 0) circles, "
                + "\(report.counts["suggestions"] ?? 0) suggestions in \(report.requests) requests; \(bytes / 1_024) KB on disk"
        }
        try await app.admin(.put, "admin/faults", json: EndToEnd.offlineFaults)
        do {
            try await step("Contacts offline: search \"zoe mar\" and \"(200) 000\", open the score, rename a contact") {
                let byName = try await app.contacts.search("zoe mar", limit: 3)
                let byPhone = try await app.contacts.search("(200) 000", limit: 1)
                let score = try await app.contacts.score()
                try await app.contacts.rename(contactId: "c1", to: "Ana (renamed offline)")
                let queued = await app.queue.pending().count
                return "\(byName.total) found (\(byName.contacts.map(\.displayName).joined(separator: ", "))); "
                    + "\(byPhone.contacts.first?.displayName ?? "none") by phone; score \(score.value?.value ?? 0) with "
                    + "\(score.value?.history.count ?? 0) days; \(queued) change queued: will sync when online"
            }
        } catch {
            try? await app.admin(.delete, "admin/faults")
            throw error
        }
        try await app.admin(.delete, "admin/faults")
        try await step("Contacts back online: the queue drains, then an incremental sync") {
            let replay = await app.queue.replay()
            let report = await app.contacts.syncNow()
            let shown = try await app.contacts.contact(id: "c1").value?.displayName ?? "gone"
            return "sent \(replay.sent); \(report.mode?.rawValue ?? "-") sync in \(report.requests) requests; c1 is \"\(shown)\""
        }
    }
}
