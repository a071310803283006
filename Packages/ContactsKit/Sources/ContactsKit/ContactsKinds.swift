import Foundation

/// A field whose values the server may extend: the known ones as cases, any other kept as sent (never a
/// decoding failure), encoded back as the same string.
public protocol OpenValue: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value as the server sends it.
    var rawValue: String { get }
    /// The value `rawValue` names: a known case, or the unknown one holding it.
    init(_ rawValue: String)
}

extension OpenValue {
    /// Decodes any string: an unknown one becomes the unknown case.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the string the value was sent as.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The value as the server sends it.
    public var description: String { rawValue }
}

/// What kind of contact or profile: a person, a business, a family.
public enum ProfileClass: OpenValue {
    /// A person.
    case person
    /// A business.
    case business
    /// A family.
    case family
    /// A class this version does not know.
    case unknown(String)

    /// The class `rawValue` names.
    public init(_ rawValue: String) {
        switch rawValue {
        case "person": self = .person
        case "business": self = .business
        case "family": self = .family
        default: self = .unknown(rawValue)
        }
    }

    /// `person`, `business`, `family`, or the unknown value.
    public var rawValue: String {
        switch self {
        case .person: "person"
        case .business: "business"
        case .family: "family"
        case .unknown(let value): value
        }
    }
}

/// What kind of circle: one every user has, one suggested at sign-up, or one the user made.
public enum CircleKind: OpenValue {
    /// Every user has it; it cannot be deleted.
    case mandatory
    /// Suggested at sign-up.
    case prepopulated
    /// Made by the user; it can be deleted.
    case custom
    /// A kind this version does not know.
    case unknown(String)

    /// The kind `rawValue` names.
    public init(_ rawValue: String) {
        switch rawValue {
        case "mandatory": self = .mandatory
        case "prepopulated": self = .prepopulated
        case "custom": self = .custom
        default: self = .unknown(rawValue)
        }
    }

    /// `mandatory`, `prepopulated`, `custom`, or the unknown value.
    public var rawValue: String {
        switch self {
        case .mandatory: "mandatory"
        case .prepopulated: "prepopulated"
        case .custom: "custom"
        case .unknown(let value): value
        }
    }
}

/// Who may see a field of a circle's members.
public enum AccessAudience: OpenValue {
    /// Everyone.
    case everyone
    /// The circle's members.
    case circle
    /// Nobody.
    case nobody
    /// An audience this version does not know.
    case unknown(String)

    /// The audience `rawValue` names.
    public init(_ rawValue: String) {
        switch rawValue {
        case "everyone": self = .everyone
        case "circle": self = .circle
        case "nobody": self = .nobody
        default: self = .unknown(rawValue)
        }
    }

    /// `everyone`, `circle`, `nobody`, or the unknown value.
    public var rawValue: String {
        switch self {
        case .everyone: "everyone"
        case .circle: "circle"
        case .nobody: "nobody"
        case .unknown(let value): value
        }
    }
}

/// How sure the server is that two contacts are one person.
public enum SuggestionTier: OpenValue {
    /// Sure enough to merge without asking.
    case auto
    /// Worth asking the user.
    case review
    /// Unlikely.
    case low
    /// A tier this version does not know.
    case unknown(String)

    /// The tier `rawValue` names.
    public init(_ rawValue: String) {
        switch rawValue {
        case "auto": self = .auto
        case "review": self = .review
        case "low": self = .low
        default: self = .unknown(rawValue)
        }
    }

    /// `auto`, `review`, `low`, or the unknown value.
    public var rawValue: String {
        switch self {
        case .auto: "auto"
        case .review: "review"
        case .low: "low"
        case .unknown(let value): value
        }
    }
}

/// Where a duplicate suggestion stands.
public enum SuggestionStatus: OpenValue {
    /// Waiting for the user.
    case pending
    /// Confirmed: the two are one person.
    case resolved
    /// Dismissed: they are not.
    case dismissed
    /// A status this version does not know.
    case unknown(String)

    /// The status `rawValue` names.
    public init(_ rawValue: String) {
        switch rawValue {
        case "pending": self = .pending
        case "resolved": self = .resolved
        case "dismissed": self = .dismissed
        default: self = .unknown(rawValue)
        }
    }

    /// `pending`, `resolved`, `dismissed`, or the unknown value.
    public var rawValue: String {
        switch self {
        case .pending: "pending"
        case .resolved: "resolved"
        case .dismissed: "dismissed"
        case .unknown(let value): value
        }
    }
}
