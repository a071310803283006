import APICore
import Foundation

/// Splits a response into records: an object with a key from a kit's provider (`Account:123`) is
/// stored once under it; an object without one under its path from its parent
/// (`QUERY_ROOT.account(id:"123")`). Field keys never use aliases.
struct Normalizer {
    let variables: [String: JSONValue]
    let keyProvider: @Sendable (_ typename: String, _ object: [String: JSONValue]) -> NormalizedCacheKey?
    let now: Date
    private(set) var records: [String: NormalizedRecord] = [:]

    init(
        variables: [String: JSONValue], now: Date,
        keyProvider: @escaping @Sendable (String, [String: JSONValue]) -> NormalizedCacheKey?
    ) {
        self.variables = variables
        self.now = now
        self.keyProvider = keyProvider
    }

    /// Writes `object`'s selected fields into the record `key`. The record is filled locally and
    /// stored once (a nested object with the same key, written meanwhile, is merged with it).
    mutating func write(_ object: [String: JSONValue], selections: [QuerySelection], into key: String, accountId: String?) {
        var fields: [(String, RecordValue)] = []
        fill(&fields, from: object, selections: selections, key: key, accountId: accountId)
        let record = NormalizedRecord(fields: fields, writtenAt: now, accountId: accountId)
        if var existing = records[key] {
            _ = existing.merge(record)
            records[key] = existing
        } else {
            records[key] = record
        }
    }

    private mutating func fill(
        _ fields: inout [(String, RecordValue)], from object: [String: JSONValue],
        selections: [QuerySelection], key: String, accountId: String?
    ) {
        for selection in selections {
            switch selection {
            case .field(let field):
                // A field missing from the response belongs to a fragment that did not apply.
                guard let value = object[field.responseKey] else { continue }
                let fieldKey = FieldKey.make(field, variables: variables)
                fields.append(
                    (
                        fieldKey,
                        field.selections.isEmpty
                            ? .value(value)
                            : normalize(value, field: field, path: FieldPath(key, fieldKey).description, accountId: accountId)
                    ))
            case .fragment(_, let selections):
                fill(&fields, from: object, selections: selections, key: key, accountId: accountId)
            }
        }
    }

    /// `path` is built only for an object without a key: most objects have one.
    private mutating func normalize(
        _ value: JSONValue, field: QueryField, path: @autoclosure () -> String,
        accountId: String?
    ) -> RecordValue {
        switch value {
        case .object(let object):
            if let typename = object["__typename"]?.stringValue, let key = keyProvider(typename, object) {
                write(object, selections: field.selections, into: key.key, accountId: key.accountId)
                return .reference(key.key)
            }
            let childKey = path()
            write(object, selections: field.selections, into: childKey, accountId: accountId)
            return .reference(childKey)
        case .array(let items):
            var list: [RecordValue] = []
            list.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                list.append(normalize(item, field: field, path: "\(path()).\(index)", accountId: accountId))
            }
            return .list(list)
        default:
            return .value(value)
        }
    }
}
