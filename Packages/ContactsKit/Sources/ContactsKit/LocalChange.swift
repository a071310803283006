import Foundation

/// A change made on the device, shown at once and kept with its effect until the server confirms it (sent)
/// or refuses it: a sync applies the kept ones again over every page it stores, so the user's pending
/// changes always win over older server data.
enum LocalChange: Codable, Sendable, Hashable {
    case rename(contactId: String, name: String)
    case settle(suggestionId: String, status: String)
    case importContacts([Contact])
    case createCircle(ContactCircle)
    case renameCircle(id: String, name: String)
    case setAccessPolicy(circleId: String, field: String, audience: String)
    case deleteCircle(id: String)
    case switchProfile(id: String)
    case editContact(contactId: String, edit: ContactEdit)
    case createContact(Contact)
    case deleteContact(id: String)
    case addToCircle(contactId: String, circleId: String)
    case removeFromCircle(contactId: String, circleId: String)
    case restyleCircle(id: String, emoji: String?, color: String)

    /// The contact a refusal restores from the server, if the change is of one the server has.
    var contactId: String? {
        switch self {
        case .rename(let id, _), .editContact(let id, _), .deleteContact(let id), .addToCircle(let id, _), .removeFromCircle(let id, _): id
        default: nil
        }
    }

    /// The contacts it changes: each shows "Will sync when online" while it waits.
    var contactIds: [String] {
        switch self {
        case .importContacts(let contacts): contacts.map(\.id)
        case .createContact(let contact): [contact.id]
        default: contactId.map { [$0] } ?? []
        }
    }

    /// The circles it changes.
    var circleIds: [String] {
        switch self {
        case .createCircle(let circle): [circle.id]
        case .renameCircle(let id, _), .deleteCircle(let id), .restyleCircle(let id, _, _): [id]
        case .setAccessPolicy(let id, _, _), .addToCircle(_, let id), .removeFromCircle(_, let id): [id]
        default: []
        }
    }

    /// The contacts and circles that must be on the device for it to apply (a screen that showed a record
    /// deleted since gets ``ContactsError/notFound``).
    var required: (contacts: [String], circles: [String]) {
        switch self {
        case .editContact(let id, _), .deleteContact(let id), .rename(let id, _): ([id], [])
        case .addToCircle(let contact, let circle), .removeFromCircle(let contact, let circle): ([contact], [circle])
        case .renameCircle(let id, _), .restyleCircle(let id, _, _), .deleteCircle(let id), .setAccessPolicy(let id, _, _): ([], [id])
        default: ([], [])
        }
    }

    /// Contacts it adds on the device that the server may never take (undone by removing them).
    var addedContacts: [Contact] {
        switch self {
        case .importContacts(let contacts): contacts
        case .createContact(let contact): [contact]
        default: []
        }
    }

    /// Whether a refusal restores the circles, suggestions and profile from the server.
    var restoresSummary: Bool {
        switch self {
        case .rename, .editContact, .deleteContact, .importContacts, .createContact: false
        default: true
        }
    }

    /// The circles whose members it changes.
    var membershipCircles: [String] {
        switch self {
        case .addToCircle(_, let id), .removeFromCircle(_, let id): [id]
        default: []
        }
    }
}

/// What an edit of a contact changes: each field given replaces the contact's.
public struct ContactEdit: Codable, Sendable, Hashable {
    /// The new name.
    public var displayName: String?
    /// The new phone numbers.
    public var phones: [String]?
    /// The new e-mail addresses.
    public var emails: [String]?

    /// An edit; a field left `nil` is kept as it is.
    public init(displayName: String? = nil, phones: [String]? = nil, emails: [String]? = nil) {
        self.displayName = displayName
        self.phones = phones
        self.emails = emails
    }

    /// Applies the edit to `contact`.
    func applied(to contact: Contact) -> Contact {
        var contact = contact
        if let displayName { contact.displayName = displayName }
        if let phones { contact.phones = phones }
        if let emails { contact.emails = emails }
        return contact
    }
}
