import Foundation

/// Splits a response into records: an object with a key from a kit's provider (`Account:123`) is
/// stored once under it; an object without one under its path from its parent
/// (`QUERY_ROOT.account(id:"123")`). Field keys never use aliases.
struct Normalizer {
    let variables: [String: JSONValue]
    let keyProvider: @Sendable (_ typename: String, _ object: [String: JSONValue]) -> NormalizedCacheKey?
    let now: Date
    private(set) var records: [String: NormalizedRecord] = [:]

    init(variables: [String: JSONValue], now: Date,
         keyProvider: @escaping @Sendable (String, [String: JSONValue]) -> NormalizedCacheKey?) {
        self.variables = variables
        self.now = now
        self.keyProvider = keyProvider
    }

    /// Writes `object`'s selected fields into the record `key`.
    mutating func write(_ object: [String: JSONValue], selections: [QuerySelection], into key: String, accountId: String?) {
        if records[key] == nil { records[key] = NormalizedRecord(accountId: accountId) }
        for selection in selections {
            switch selection {
            case .field(let field):
                // A field missing from the response belongs to a fragment that did not apply.
                guard let value = object[field.responseKey] else { continue }
                let fieldKey = FieldKey.make(field, variables: variables)
                let stored = field.selections.isEmpty
                    ? .value(value) : normalize(value, field: field, path: FieldPath(key, fieldKey).description, accountId: accountId)
                records[key]?.fields[fieldKey] = stored
                records[key]?.writtenAt[fieldKey] = now
            case .fragment(_, let selections):
                write(object, selections: selections, into: key, accountId: accountId)
            }
        }
    }

    private mutating func normalize(_ value: JSONValue, field: QueryField, path: String, accountId: String?) -> RecordValue {
        guard !field.selections.isEmpty else { return .value(value) }
        switch value {
        case .object(let object):
            var childKey = path
            var childAccount = accountId
            if let typename = object["__typename"]?.stringValue, let key = keyProvider(typename, object) {
                childKey = key.key
                childAccount = key.accountId
            }
            write(object, selections: field.selections, into: childKey, accountId: childAccount)
            return .reference(childKey)
        case .array(let items):
            return .list(items.enumerated().map { index, item in
                normalize(item, field: field, path: "\(path).\(index)", accountId: accountId)
            })
        default:
            return .value(value)
        }
    }
}
