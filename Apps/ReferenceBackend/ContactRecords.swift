import Foundation

/// A contact of a user's address book, as the contacts API serves it.
public struct ContactRecord: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// The name shown.
    public var displayName: String
    /// Phone numbers, as the user typed them.
    public var phones: [String]
    /// E-mail addresses.
    public var emails: [String]
    /// The thumbnail's path on this server (`/avatars/…`), if any.
    public var photoPath: String?
    /// The circles it belongs to.
    public var circles: [String]
    /// `person`, `business` or `family`.
    public var profileClass: String
    /// Enrichment badges (`verified`, `linkedin`, …).
    public var enrichmentBadges: [String]
    /// When it last changed on the server.
    public var updatedAt: Date
    /// Set on a change feed's entry for a contact that was deleted (its other fields are empty).
    public var deleted: Bool?
}

/// A circle of contacts.
public struct CircleRecord: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// The name shown.
    public var name: String
    /// An emoji, if any.
    public var emoji: String?
    /// A hex colour (`#3366FF`).
    public var color: String
    /// `mandatory`, `prepopulated` or `custom`.
    public var type: String
    /// How many contacts it holds.
    public var memberCount: Int
    /// Who may see what (`phone: circle`, `email: nobody`).
    public var accessPolicies: [String: String]
}

/// The user's score, with its last 30 days.
public struct ScoreRecord: Codable, Sendable, Hashable {
    /// One day's value.
    public struct Point: Codable, Sendable, Hashable {
        /// The day, `yyyy-MM-dd`.
        public var day: String
        /// Its value.
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
    /// When it was computed.
    public var computedAt: Date
    /// The last 30 days, oldest first.
    public var history: [Point]
}

/// A possible duplicate: two contacts that may be one person.
public struct SuggestionRecord: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// The first contact.
    public var contactA: String
    /// The second contact.
    public var contactB: String
    /// 0 to 1.
    public var confidence: Double
    /// `auto`, `review` or `low`.
    public var tier: String
    /// Why they look alike.
    public var evidence: [String]
    /// `pending`, `resolved` or `dismissed`.
    public var status: String
}

/// The user's own profile in the contacts app, with the shadow profiles they can switch between.
public struct ProfileRecord: Codable, Sendable, Hashable {
    /// A shadow profile: another face of the user (work, personal).
    public struct Shadow: Codable, Sendable, Hashable {
        /// Stable identifier.
        public var id: String
        /// The name shown.
        public var name: String
    }

    /// The user's name.
    public var displayName: String
    /// `person`, `business` or `family`.
    public var profileClass: String
    /// The shadow profiles.
    public var shadowProfiles: [Shadow]
    /// The one in use.
    public var activeProfile: String
}

/// What enrichment adds to a contact: their work and public profiles.
public struct EnrichmentRecord: Codable, Sendable, Hashable {
    /// The contact.
    public var contactId: String
    /// Where they work.
    public var company: String
    /// Their title there.
    public var title: String
    /// Public profiles (`linkedin.com/in/…`).
    public var profiles: [String]
}
