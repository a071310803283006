import CacheKit
import Foundation
import Observation

/// A contact's detail screen, kept up to date: the contact as the device has it (a change made on the
/// device shows at once, marked waiting), its age label ("Last updated 2 d ago"), and why it could not be
/// read.
///
/// <!-- example: not compiled, SwiftUI is Apple-only -->
/// ```swift
/// struct ContactScreen: View {
///     @State var model: ContactDetailModel
///     var body: some View {
///         Form {
///             Text(model.contact?.displayName ?? "")
///             if model.contact?.hasPendingChange == true { Text("Will sync when online") }
///             if let label = model.label { Text(label).font(.caption) }
///         }
///         .task { await model.run() }
///     }
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ContactDetailModel {
    /// The contact; `nil` while the device does not have it (or after it was deleted).
    public private(set) var contact: Contact?
    /// "Last updated X ago" past a day, or `nil`.
    public private(set) var label: String?
    /// Why it could not be read, if it could not.
    public private(set) var error: ContactsError?
    /// Whether a first value arrived.
    public private(set) var isLoaded = false
    /// The contact's id.
    public let contactId: String
    private let client: ContactsClient

    /// A model of the contact `contactId`.
    public init(client: ContactsClient, contactId: String) {
        self.client = client
        self.contactId = contactId
    }

    /// Follows the contact until the calling task is cancelled or the user's data is cleared.
    public func run() async {
        do {
            for try await reading in try await client.observeContact(id: contactId) {
                contact = reading.value
                label = reading.label
                error = nil
                isLoaded = true
            }
        } catch {
            self.error = ContactsError(error)
        }
    }

    /// Renames the contact: shown at once, queued.
    @discardableResult
    public func rename(to name: String) async throws(ContactsError) -> ContactsChange {
        try await client.rename(contactId: contactId, to: name)
    }
}
