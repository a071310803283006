import Foundation

/// One record as ``SearchIndex`` knows it: its id, what it sorts by, and the text it is found by.
///
/// ```swift
/// SearchDocument(id: contact.id, sortKey: contact.displayName, fields: [
///     .name(contact.displayName), .phones(contact.phones), .text(contact.emails),
/// ])
/// ```
public struct SearchDocument: Sendable, Hashable {
    /// The record's id, what a search returns.
    public var id: String
    /// What results of equal rank are ordered by (folded; a display name).
    public var sortKey: String
    /// The text it is found by, most telling first.
    public var fields: [SearchField]

    /// Creates a document.
    public init(id: String, sortKey: String, fields: [SearchField]) {
        self.id = id
        self.sortKey = sortKey
        self.fields = fields
    }

    /// `text` in lowercase without diacritics, exactly as Foundation's
    /// `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)` gives it (width kept), with
    /// ASCII and Latin text (`Zoë`, `Ångström`, `Müller`) folded without Foundation's cost: a kit's sort key for
    /// rows written by the thousand.
    public static func sortKey(folding text: String) -> String {
        if let bytes = SearchText.latinFold(text) { return String(decoding: bytes, as: UTF8.self) }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}

/// Text a ``SearchDocument`` is found by, and how a match in it ranks.
public struct SearchField: Sendable, Hashable {
    /// What kind of text it is.
    public enum Kind: UInt8, Sendable, Hashable {
        /// A name: a match ranks first.
        case name = 0
        /// Other words (e-mail addresses, a company, notes).
        case text = 1
        /// Phone numbers, found by their digits whatever the formatting.
        case phone = 2
    }

    /// The kind.
    public var kind: Kind
    /// The texts.
    public var values: [String]

    /// A name (a match ranks first).
    public static func name(_ value: String) -> SearchField { SearchField(kind: .name, values: [value]) }
    /// Other words, such as e-mail addresses.
    public static func text(_ values: [String]) -> SearchField { SearchField(kind: .text, values: values) }
    /// Phone numbers.
    public static func phones(_ values: [String]) -> SearchField { SearchField(kind: .phone, values: values) }

    /// The terms it is found by, each with its kind.
    var terms: [String] {
        switch kind {
        case .phone: values.flatMap(SearchText.phoneTerms)
        case .name, .text: values.flatMap(SearchText.words)
        }
    }
}

/// A page of ``SearchIndex/search(_:offset:limit:)`` results.
public struct SearchResults: Sendable, Hashable {
    /// The ids of the page's records, best match first.
    public var ids: [String]
    /// How many records match in all.
    public var total: Int

    /// Creates results.
    public init(ids: [String], total: Int) {
        self.ids = ids
        self.total = total
    }
}
