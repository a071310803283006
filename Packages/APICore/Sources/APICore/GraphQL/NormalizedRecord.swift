import Foundation

/// One object in the normalized store: its fields by field key (`balance`, `account(id:"123")`),
/// when each was written, and the account it belongs to when a kit's key provider says so.
public struct NormalizedRecord: Sendable, Hashable {
    /// The fields, by field key.
    public var fields: [String: RecordValue]
    /// When each field was last written.
    public var writtenAt: [String: Date]
    /// The account that owns the object, for exact account clearing.
    public var accountId: String?

    /// Creates a record.
    public init(fields: [String: RecordValue] = [:], writtenAt: [String: Date] = [:], accountId: String? = nil) {
        self.fields = fields
        self.writtenAt = writtenAt
        self.accountId = accountId
    }

    /// The object's `__typename`, when stored.
    public var typename: String? {
        if case .value(.string(let name)) = fields["__typename"] { name } else { nil }
    }
}

/// A field's stored value: a scalar (or null), a reference to another record, or a list of those.
public indirect enum RecordValue: Sendable, Hashable {
    /// A scalar, a custom scalar's JSON, or null.
    case value(JSONValue)
    /// The key of another record.
    case reference(String)
    /// A list, possibly nested.
    case list([RecordValue])

    /// Every record key this value references, at any depth.
    var references: [String] {
        switch self {
        case .value: []
        case .reference(let key): [key]
        case .list(let items): items.flatMap(\.references)
        }
    }
}

/// One field of one record (`Account:123` and `balance`): what a watcher read and what a write
/// changed.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The record's key.
    public var record: String
    /// The field's key.
    public var field: String

    /// Creates a path.
    public init(_ record: String, _ field: String) {
        self.record = record
        self.field = field
    }

    /// `Account:123.balance`.
    public var description: String { "\(record).\(field)" }
}

/// The root records' keys.
public enum RootKey {
    /// Where a query's root fields are stored (the seed's `QUERY_ROOT`).
    public static let query = "QUERY_ROOT"
    /// Where a mutation's root fields are stored.
    public static let mutation = "MUTATION_ROOT"
}
