import APICore
import Foundation

/// Decodes a `Decodable` type straight from normalized records, following the query's selections: no
/// `[String: JSONValue]` tree and no JSON text in between. What a typed cache hit
/// (``GraphQLClient/fetch(_:as:policy:timeout:)``) uses.
///
/// Only the fields the type asks for are read, so presence and freshness are judged by those: a selected
/// field the type never decodes is neither required nor dated. A record or field the type needs that is
/// not stored throws ``CacheReadMiss``; a stored value of the wrong kind throws `DecodingError`, as
/// `JSONDecoder` would for the same data.
enum RecordDecoding {
    /// What the reading found so far: the oldest write among the fields read.
    final class Progress {
        var oldestWrite: Date?
        let variables: [String: JSONValue]
        let record: (String) throws(CacheReadMiss) -> NormalizedRecord?

        init(variables: [String: JSONValue], record: @escaping (String) throws(CacheReadMiss) -> NormalizedRecord?) {
            self.variables = variables
            self.record = record
        }

        func load(_ key: String) throws -> NormalizedRecord {
            guard let found = try record(key) else { throw CacheReadMiss.missing(path: key) }
            return found
        }
    }

    /// Decodes `type` from the record under `key`, read with `plan`.
    static func decode<T: Decodable>(_ type: T.Type, from key: String, plan: SelectionPlan, progress: Progress) throws -> T {
        try T(from: RecordValueDecoder(value: .reference(key), plan: plan, progress: progress, parentPath: [], key: nil))
    }
}

/// One value of a record (a scalar, a reference, or a list of those) as a `Decoder`.
struct RecordValueDecoder: Decoder {
    let value: RecordValue
    let plan: SelectionPlan?
    let progress: RecordDecoding.Progress
    let parentPath: [any CodingKey]
    let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    /// A scalar as a ``ValueDecoder`` over its JSON.
    var scalar: ValueDecoder? {
        if case .value(let json) = value { ValueDecoder(value: json, parentPath: parentPath, key: key) } else { nil }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .reference(let recordKey):
            guard let plan else {
                throw DecodingError.typeMismatch(
                    [String: JSONValue].self, .init(codingPath: codingPath, debugDescription: "The query selects no fields here."))
            }
            let record = try progress.load(recordKey)
            return KeyedDecodingContainer(
                RecordContainer<Key>(recordKey: recordKey, record: record, plan: plan, progress: progress, codingPath: codingPath))
        case .value(let json):
            return try ValueDecoder(value: json, parentPath: parentPath, key: key).container(keyedBy: Key.self)
        case .list:
            throw DecodingError.typeMismatch(
                [String: JSONValue].self, .init(codingPath: codingPath, debugDescription: "Expected an object but found a list."))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .list(let items):
            return RecordListContainer(items: items, plan: plan, progress: progress, codingPath: codingPath)
        case .value(let json):
            return try ValueDecoder(value: json, parentPath: parentPath, key: key).unkeyedContainer()
        case .reference:
            throw DecodingError.typeMismatch(
                [JSONValue].self, .init(codingPath: codingPath, debugDescription: "Expected a list but found an object."))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if let scalar { return scalar }
        return self
    }

    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar { return try scalar.unbox(T.self) }
        return try T(from: self)
    }
}

/// An object or a list as a single value: only a `Decodable` type can come out of it.
extension RecordValueDecoder: SingleValueDecodingContainer {
    private func notAScalar(_ expected: Any.Type) -> DecodingError {
        .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "Expected \(expected) but found an object or a list."))
    }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { throw notAScalar(type) }
    func decode(_ type: String.Type) throws -> String { throw notAScalar(type) }
    func decode(_ type: Double.Type) throws -> Double { throw notAScalar(type) }
    func decode(_ type: Float.Type) throws -> Float { throw notAScalar(type) }
    func decode(_ type: Int.Type) throws -> Int { throw notAScalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { throw notAScalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { throw notAScalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { throw notAScalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { throw notAScalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { throw notAScalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { throw notAScalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { throw notAScalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { throw notAScalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { throw notAScalar(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}

/// A record's fields, by the response key the query gives them (the alias, else the name).
private struct RecordContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recordKey: String
    let record: NormalizedRecord
    let plan: SelectionPlan
    let progress: RecordDecoding.Progress
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        plan.fields.compactMap { field in
            record.entry(field.key(variables: progress.variables)) != nil ? Key(stringValue: field.responseKey) : nil
        }
    }

    func contains(_ key: Key) -> Bool {
        guard let field = plan.field(key.stringValue) else { return false }
        return record.entry(field.key(variables: progress.variables)) != nil
    }

    /// The stored value of the field the query names `key`, its write time counted.
    private func stored(_ key: Key) throws -> (value: RecordValue, field: SelectionPlan.Field) {
        guard let field = plan.field(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "The query does not select \(key.stringValue)."))
        }
        let fieldKey = field.key(variables: progress.variables)
        guard let (value, written) = record.entry(fieldKey) else { throw CacheReadMiss.missing(path: "\(recordKey).\(fieldKey)") }
        progress.oldestWrite = min(progress.oldestWrite ?? written, written)
        return (value, field)
    }

    private func member(_ key: Key) throws -> RecordValueDecoder {
        let (value, field) = try stored(key)
        return RecordValueDecoder(value: value, plan: field.child, progress: progress, parentPath: codingPath, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .value(.null) = try stored(key).value { return true }
        return false
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        if case .value(.string(let string)) = try stored(key).value { return string }
        return try member(key).unbox(String.self)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        if case .value(.int(let int)) = try stored(key).value { return int }
        return try member(key).unbox(Int.self)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        if case .value(.bool(let bool)) = try stored(key).value { return bool }
        return try member(key).unbox(Bool.self)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).unbox(T.self) }

    /// `nil` for a stored null or a field the query does not select; a selected field that is not stored
    /// is a miss, as for any other type.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard plan.field(key.stringValue) != nil else { return nil }
        let member = try member(key)
        if case .value(.null) = member.value { return nil }
        return try member.unbox(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "A record has no super decoder."))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

/// A stored list's items, in order.
private struct RecordListContainer: UnkeyedDecodingContainer {
    let items: [RecordValue]
    let plan: SelectionPlan?
    let progress: RecordDecoding.Progress
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [RecordValue], plan: SelectionPlan?, progress: RecordDecoding.Progress, codingPath: [any CodingKey]) {
        self.items = items
        self.plan = plan
        self.progress = progress
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next(_ expected: Any.Type) throws -> RecordValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                expected,
                .init(codingPath: codingPath + [JSONIndexKey(intValue: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return RecordValueDecoder(
            value: items[currentIndex], plan: plan, progress: progress, parentPath: codingPath, key: JSONIndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .value(.null) = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(T.self).unbox(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: JSONValue].self).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}
