import CacheKit
import Foundation

/// A contact of the user's address book, as kept on the device.
public struct Contact: Codable, Sendable, Hashable, Identifiable {
    /// The server's id.
    public var id: String
    /// The name shown.
    public var displayName: String
    /// Phone numbers, as the user typed them.
    public var phones: [String]
    /// E-mail addresses.
    public var emails: [String]
    /// The thumbnail's path on the server, if any (loaded through the app's `ImageCache`).
    public var photoPath: String?
    /// The ids of the circles it belongs to.
    public var circles: [String]
    /// A person, a business or a family.
    public var profileClass: ProfileClass
    /// Enrichment badges (`verified`, …).
    public var enrichmentBadges: [String]
    /// When it last changed on the server.
    public var updatedAt: Date
    /// Whether a change of it made on the device waits for the server ("Will sync when online"). Set by
    /// the device's reads; never stored nor sent.
    public var hasPendingChange = false

    private enum CodingKeys: String, CodingKey {
        case id, displayName, phones, emails, photoPath, circles, profileClass, enrichmentBadges, updatedAt
    }

    /// Creates a contact.
    public init(
        id: String, displayName: String, phones: [String] = [], emails: [String] = [], photoPath: String? = nil, circles: [String] = [],
        profileClass: ProfileClass = .person, enrichmentBadges: [String] = [], updatedAt: Date
    ) {
        self.id = id
        self.displayName = displayName
        self.phones = phones
        self.emails = emails
        self.photoPath = photoPath
        self.circles = circles
        self.profileClass = profileClass
        self.enrichmentBadges = enrichmentBadges
        self.updatedAt = updatedAt
    }
}

/// A circle of contacts.
public struct ContactCircle: Codable, Sendable, Hashable, Identifiable {
    /// The server's id.
    public var id: String
    /// The name shown.
    public var name: String
    /// An emoji, if any.
    public var emoji: String?
    /// A hex colour.
    public var color: String
    /// Mandatory, prepopulated or custom.
    public var type: CircleKind
    /// How many contacts it holds.
    public var memberCount: Int
    /// Who may see which field of its members (`phone`: `.circle`).
    public var accessPolicies: [String: AccessAudience]
    /// Whether a change of it made on the device waits for the server ("Will sync when online"). Set by
    /// the device's reads; never stored nor sent.
    public var hasPendingChange = false

    private enum CodingKeys: String, CodingKey {
        case id, name, emoji, color, type, memberCount, accessPolicies
    }
}

/// The user's score with its last 30 days.
public struct ContactScore: Codable, Sendable, Hashable {
    /// One day's value.
    public struct Point: Codable, Sendable, Hashable {
        /// The day, `yyyy-MM-dd`.
        public var day: String
        /// The value.
        public var value: Int
    }

    /// 0 to 100.
    public var value: Int
    /// 0 to 1.
    public var quality: Double
    /// 0 to 1.
    public var position: Double
    /// 0 to 1.
    public var stability: Double
    /// 0 to 1.
    public var trust: Double
    /// The formula that computed it.
    public var formulaVersion: String
    /// When the server computed it.
    public var computedAt: Date
    /// The last 30 days, oldest first (the sparkline).
    public var history: [Point]
}

/// Two contacts that may be one person.
public struct DuplicateSuggestion: Codable, Sendable, Hashable, Identifiable {
    /// The server's id.
    public var id: String
    /// The first contact's id.
    public var contactA: String
    /// The second contact's id.
    public var contactB: String
    /// 0 to 1.
    public var confidence: Double
    /// How sure the server is.
    public var tier: SuggestionTier
    /// Why they look alike.
    public var evidence: [String]
    /// Pending, resolved or dismissed.
    public var status: SuggestionStatus
}

/// The user's own profile, with the shadow profiles they can switch between.
public struct ContactProfile: Codable, Sendable, Hashable {
    /// Another face of the user (work, personal).
    public struct Shadow: Codable, Sendable, Hashable, Identifiable {
        /// The server's id.
        public var id: String
        /// The name shown.
        public var name: String
    }

    /// The user's name.
    public var displayName: String
    /// A person, a business or a family.
    public var profileClass: ProfileClass
    /// The shadow profiles, available offline.
    public var shadowProfiles: [Shadow]
    /// The id of the one in use.
    public var activeProfile: String
}

/// What enrichment adds to a contact: their work and public profiles.
public struct ContactEnrichment: Codable, Sendable, Hashable {
    /// The contact.
    public var contactId: String
    /// Where they work.
    public var company: String
    /// Their title there.
    public var title: String
    /// Public profiles.
    public var profiles: [String]
}

/// What a screen shows: the value, when the device last had it from the server, and the label its age
/// calls for (`nil`: none).
public struct ContactsReading<Value: Sendable>: Sendable {
    /// The value, from the device.
    public var value: Value
    /// When the device last had it from the server (the last completed sync, or a later refresh of this
    /// record); `nil` before the first.
    public var syncedAt: Date?
    /// The label its age calls for, as a value a screen can render in its language; `nil` for none.
    public var staleLabel: StaleLabel?

    /// The label's English text: "Last updated 2 d ago", "Estimated · last updated 2 d ago", or `nil`.
    public var label: String? { staleLabel?.description }
}

extension ContactsReading: Equatable where Value: Equatable {}
extension ContactsReading: Hashable where Value: Hashable {}

/// A page of contacts.
public struct ContactsPage: Sendable, Hashable {
    /// The page's contacts.
    public var contacts: [Contact]
    /// How many there are in all (for a search: how many match).
    public var total: Int
}

extension Contact {
    /// What the search index knows of it: its name, e-mails and phone numbers.
    var searchDocument: SearchDocument {
        SearchDocument(id: id, sortKey: displayName, fields: [.name(displayName), .text(emails), .phones(phones)])
    }
}
