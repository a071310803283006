import APICore
import CacheKit
import Foundation

/// Why a query could not be read from the store.
public enum CacheReadMiss: Error, Sendable, Hashable {
    /// A record or field the query selects is not stored: `path` names it (`Account:123.balance`).
    case missing(path: String)
    /// A stored value does not fit the query (an object where a scalar was expected): dropped and refetched.
    case corrupt(path: String, reason: String)
}

extension CacheReadMiss: CustomStringConvertible {
    /// The form for logs: the record's path redacted (it holds ids), the reason a value did not fit.
    public var description: String {
        switch self {
        case .missing(let path): "not stored: \(RedactedKey(path))"
        case .corrupt(let path, let reason): "a stored value does not fit at \(RedactedKey(path)): \(reason)"
        }
    }
}

extension CacheReadMiss: LocalizedError {
    /// A sentence for people: what is not stored yet must be loaded.
    public var errorDescription: String? {
        switch self {
        case .missing: ErrorMessages.notAvailableOffline
        case .corrupt: ErrorMessages.unreadableAnswer
        }
    }
}

/// Reads a query's data back from records, noting every field it read (for watchers) and the oldest
/// write among them (for freshness).
struct RecordReader {
    let variables: [String: JSONValue]
    let record: (String) throws(CacheReadMiss) -> NormalizedRecord?
    let tracksDependencies: Bool
    private(set) var dependencies: Set<FieldPath> = []
    private(set) var oldestWrite: Date?
    /// The record that held a corrupt value, when reading threw ``CacheReadMiss/corrupt(path:reason:)``.
    private(set) var corruptRecord: String?

    init(
        variables: [String: JSONValue], tracksDependencies: Bool = true,
        record: @escaping (String) throws(CacheReadMiss) -> NormalizedRecord?
    ) {
        self.variables = variables
        self.tracksDependencies = tracksDependencies
        self.record = record
    }

    mutating func read(_ selections: [QuerySelection], from key: String) throws(CacheReadMiss) -> [String: JSONValue] {
        let found: NormalizedRecord?
        do throws(CacheReadMiss) {
            found = try record(key)
        } catch {
            if case .corrupt = error, corruptRecord == nil { corruptRecord = key }
            throw error
        }
        guard let stored = found else { throw .missing(path: key) }
        var object: [String: JSONValue] = [:]
        try read(selections, of: stored, key: key, into: &object)
        return object
    }

    private mutating func read(
        _ selections: [QuerySelection], of stored: NormalizedRecord, key: String,
        into object: inout [String: JSONValue]
    ) throws(CacheReadMiss) {
        for selection in selections {
            switch selection {
            case .field(let field):
                let fieldKey = FieldKey.make(field, variables: variables)
                guard let (value, written) = stored.entry(fieldKey) else { throw .missing(path: "\(key).\(fieldKey)") }
                if tracksDependencies { dependencies.insert(FieldPath(key, fieldKey)) }
                oldestWrite = min(oldestWrite ?? written, written)
                do {
                    object[field.responseKey] = try resolve(value, field: field, path: FieldPath(key, fieldKey).description)
                } catch {
                    if case .corrupt = error, corruptRecord == nil { corruptRecord = key }
                    throw error
                }
            case .fragment(let condition, let inner):
                if condition == nil || condition == stored.typename {
                    try read(inner, of: stored, key: key, into: &object)
                } else {
                    // The condition may name an interface: the fragment applies when its fields are stored.
                    var attempt = self
                    var partial = object
                    if (try? attempt.read(inner, of: stored, key: key, into: &partial)) != nil {
                        self = attempt
                        object = partial
                    }
                }
            }
        }
    }

    /// `path` is built only for an error or a nested list: most values are scalars.
    private mutating func resolve(_ value: RecordValue, field: QueryField, path: @autoclosure () -> String)
        throws(CacheReadMiss) -> JSONValue
    {
        switch value {
        case .value(let json):
            guard field.selections.isEmpty || json == .null else {
                throw .corrupt(path: path(), reason: "a scalar is stored where an object is selected")
            }
            return json
        case .reference(let key):
            guard !field.selections.isEmpty else {
                throw .corrupt(path: path(), reason: "a reference is stored where a scalar is selected")
            }
            return .object(try read(field.selections, from: key))
        case .list(let items):
            var result: [JSONValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() { result.append(try resolve(item, field: field, path: "\(path()).\(index)")) }
            return .array(result)
        }
    }
}
