import CacheKit
import Foundation
import Observation

/// The contacts list screen's state, kept up to date: the page of contacts (or of a search's results), when
/// the device last synced, and why it could not be read. Each row says whether a change of it waits for the
/// server (``Contact/hasPendingChange``: "Will sync when online").
///
/// <!-- example: not compiled, SwiftUI is Apple-only -->
/// ```swift
/// struct ContactsScreen: View {
///     @State var model: ContactsListModel
///     @State var query = ""
///     var body: some View {
///         List(model.contacts) { contact in
///             ContactRow(contact: contact, waiting: contact.hasPendingChange)
///         }
///         .searchable(text: $query)
///         .task(id: query) { await model.run(query: query) }   // follows until the screen goes
///     }
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ContactsListModel {
    /// The contacts shown: the first ``limit`` in name order, or a search's best matches.
    public private(set) var contacts: [Contact] = []
    /// How many there are in all (for a search: how many match).
    public private(set) var total = 0
    /// When the last sync completed; `nil` before the first ("Your contacts are on their way").
    public private(set) var syncedAt: Date?
    /// Why the list could not be read, if it could not.
    public private(set) var error: ContactsError?
    /// Whether a first value arrived.
    public private(set) var isLoaded = false
    /// How many rows it shows.
    public let limit: Int
    private let client: ContactsClient

    /// A model of `client`'s list, `limit` rows at a time.
    public init(client: ContactsClient, limit: Int = 50) {
        self.client = client
        self.limit = limit
    }

    /// Follows the list (or, with a `query`, its matches) until the calling task is cancelled, the user's
    /// data is cleared (the list then empties) or it cannot be read (``error``).
    public func run(query: String = "") async {
        do {
            let updates =
                query.isEmpty ? try await client.observeContacts(limit: limit) : try await client.observeSearch(query, limit: limit)
            for try await reading in updates {
                contacts = reading.value.contacts
                total = reading.value.total
                syncedAt = reading.syncedAt
                error = nil
                isLoaded = true
            }
        } catch {
            self.error = ContactsError(error)
        }
    }
}

extension ContactsError {
    /// `error` as the kit's error: itself, or a failure to read the device's file.
    init(_ error: any Error) {
        self = (error as? ContactsError) ?? .storage(reason: "\(error)")
    }
}
