import Foundation

/// One object in the normalized store: its fields by field key (`balance`, `account(id:"123")`),
/// when each was written, and the account it belongs to when a kit's key provider says so.
///
/// Fields are packed into one byte buffer, sorted by key (key, write time, tagged value), not
/// kept in dictionaries: a 1,000-object response then takes less than twice its JSON size in
/// memory, and reading a field is a short scan with no hashing. The SQLite store saves the same
/// bytes.
public struct NormalizedRecord: Sendable, Hashable {
    /// The packed fields.
    private(set) var bytes: [UInt8]
    /// The account that owns the object, for exact account clearing.
    public var accountId: String?

    /// Creates a record; a field with no write time is stamped at the distant past.
    public init(fields: [String: RecordValue] = [:], writtenAt: [String: Date] = [:], accountId: String? = nil) {
        self.accountId = accountId
        var packer = RecordPacker()
        for key in fields.keys.sorted() {
            packer.append(key, fields[key] ?? .value(.null), writtenAt: writtenAt[key] ?? .distantPast)
        }
        bytes = packer.packed
    }

    /// Creates a record whose fields were all written at `date`.
    init(fields: [(String, RecordValue)], writtenAt date: Date, accountId: String?) {
        self.accountId = accountId
        var packer = RecordPacker()
        for (key, value) in fields.sorted(by: { $0.0 < $1.0 }) {
            packer.append(key, value, writtenAt: date)
        }
        bytes = packer.packed
        deduplicate()
    }

    /// Wraps packed bytes read from disk after checking them.
    /// - Throws: ``RecordPackingError`` when they are not a packed record.
    init(packed: [UInt8], accountId: String?) throws(RecordPackingError) {
        var reader = RecordUnpacker(bytes: packed)
        var previous: String?
        while !reader.isAtEnd {
            let entry = try reader.nextEntry()
            if let previous, previous >= entry.key { throw RecordPackingError(reason: "fields out of order", offset: reader.offset) }
            previous = entry.key
        }
        bytes = packed
        self.accountId = accountId
    }

    /// Every field's value (unpacked: for inspection and tests, not the read path).
    public var fields: [String: RecordValue] {
        var fields: [String: RecordValue] = [:]
        forEachEntry { key, value, _ in fields[key] = value }
        return fields
    }

    /// When each field was last written.
    public var writtenAt: [String: Date] {
        var dates: [String: Date] = [:]
        forEachEntry { key, _, date in dates[key] = date }
        return dates
    }

    /// Whether the record has no field.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The object's `__typename`, when stored.
    public var typename: String? {
        if case .value(.string(let name))? = entry("__typename")?.value { name } else { nil }
    }

    /// One field's value and write time, found by scanning the packed fields.
    public func entry(_ key: String) -> (value: RecordValue, writtenAt: Date)? {
        var key = key
        return key.withUTF8 { wanted in
            var reader = RecordUnpacker(bytes: bytes)
            while !reader.isAtEnd {
                do {
                    if let found = try reader.entry(ifKeyIs: wanted) { return found }
                } catch {
                    return nil
                }
            }
            return nil
        }
    }

    /// Every field's key, in order.
    var keys: [String] {
        var keys: [String] = []
        var reader = RecordUnpacker(bytes: bytes)
        while !reader.isAtEnd, let entry = try? reader.nextRawEntry() { keys.append(entry.key) }
        return keys
    }

    /// Calls `body` with every field, in key order.
    func forEachEntry(_ body: (String, RecordValue, Date) -> Void) {
        var reader = RecordUnpacker(bytes: bytes)
        while !reader.isAtEnd, let entry = try? reader.nextEntry() {
            body(entry.key, entry.value, entry.writtenAt)
        }
    }

    /// Writes `incoming`'s fields over these (their write times too; an incoming account id
    /// replaces this one) and returns the keys of the fields whose value changed.
    mutating func merge(_ incoming: NormalizedRecord) -> [String] {
        if let account = incoming.accountId { accountId = account }
        var changed: [String] = []
        var packer = RecordPacker()
        var mine = RecordUnpacker(bytes: bytes)
        var theirs = RecordUnpacker(bytes: incoming.bytes)
        var left = try? mine.nextRawEntry()
        var right = try? theirs.nextRawEntry()
        while left != nil || right != nil {
            if let l = left, right == nil || l.key < right!.key {
                packer.appendRaw(bytes, l.range)
                left = mine.isAtEnd ? nil : try? mine.nextRawEntry()
            } else if let r = right {
                if let l = left, l.key == r.key {
                    if !bytes[l.valueRange].elementsEqual(incoming.bytes[r.valueRange]) { changed.append(r.key) }
                    left = mine.isAtEnd ? nil : try? mine.nextRawEntry()
                } else {
                    changed.append(r.key)
                }
                packer.appendRaw(incoming.bytes, r.range)
                right = theirs.isAtEnd ? nil : try? theirs.nextRawEntry()
            }
        }
        bytes = packer.packed
        return changed
    }

    /// Sets one field.
    mutating func set(_ key: String, _ value: RecordValue, writtenAt date: Date) {
        var single = RecordPacker()
        single.append(key, value, writtenAt: date)
        _ = merge(NormalizedRecord(bytes: single.bytes, accountId: nil))
    }

    /// Removes one field; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        var packer = RecordPacker()
        var reader = RecordUnpacker(bytes: bytes)
        var removed = false
        while !reader.isAtEnd, let entry = try? reader.nextRawEntry() {
            if entry.key == key { removed = true } else { packer.appendRaw(bytes, entry.range) }
        }
        bytes = packer.packed
        return removed
    }

    /// Every field stamped at `date`.
    mutating func restamp(_ date: Date) {
        var fields: [(String, RecordValue)] = []
        forEachEntry { key, value, _ in fields.append((key, value)) }
        self = NormalizedRecord(fields: fields, writtenAt: date, accountId: accountId)
    }

    private init(bytes: [UInt8], accountId: String?) {
        self.bytes = bytes
        self.accountId = accountId
    }

    /// Keeps the last of fields that share a key (a fragment selecting a field twice).
    private mutating func deduplicate() {
        var packer = RecordPacker()
        var reader = RecordUnpacker(bytes: bytes)
        var pending: RecordUnpacker.RawEntry?
        while !reader.isAtEnd, let entry = try? reader.nextRawEntry() {
            if let previous = pending, previous.key != entry.key { packer.appendRaw(bytes, previous.range) }
            pending = entry
        }
        if let pending { packer.appendRaw(bytes, pending.range) }
        bytes = packer.packed
    }
}

/// A field's stored value: a scalar (or null), a reference to another record, or a list of those.
public enum RecordValue: Sendable, Hashable {
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
