import APICore
import Foundation

/// One object in the normalized store: its fields by field key (`balance`, `account(id:"123")`),
/// when each was written, and the account it belongs to when a kit's key provider says so.
///
/// The account, the distinct write times and the fields (sorted by key) are packed into one byte
/// buffer, not kept in dictionaries: a 1,000-object response then takes less than twice its JSON
/// size in memory, and reading a field is a short scan with no hashing. The SQLite store saves the
/// same bytes.
public struct NormalizedRecord: Sendable, Hashable {
    /// The packed account, write times and fields (see ``RecordPacker``).
    private(set) var bytes: [UInt8]

    /// Creates a record; a field with no write time is stamped at the distant past.
    public init(fields: [String: RecordValue] = [:], writtenAt: [String: Date] = [:], accountId: String? = nil) {
        var packer = RecordPacker(accountId: accountId)
        for key in fields.keys.sorted() {
            packer.append(key, fields[key] ?? .value(.null), writtenAt: writtenAt[key] ?? .distantPast)
        }
        bytes = packer.packed
    }

    /// Creates a record whose fields were all written at `date`; of fields that share a key (a
    /// fragment selecting a field again), the last is kept.
    init(fields: [(String, RecordValue)], writtenAt date: Date, accountId: String?) {
        var packer = RecordPacker(accountId: accountId)
        let order = fields.indices.sorted { fields[$0].0 < fields[$1].0 || (fields[$0].0 == fields[$1].0 && $0 < $1) }
        for (position, index) in order.enumerated()
        where position + 1 == order.count || fields[order[position + 1]].0 != fields[index].0 {
            packer.append(fields[index].0, fields[index].1, writtenAt: date)
        }
        bytes = packer.packed
    }

    /// Wraps packed bytes read from disk after checking every entry: its key, its write time and its value's
    /// structure (tags and lengths, walked without building the values).
    /// - Throws: ``RecordPackingError`` when they are not a packed record.
    init(packed: [UInt8]) throws(RecordPackingError) {
        var reader = try RecordUnpacker(bytes: packed)
        var previous: String?
        while !reader.isAtEnd {
            let entry = try reader.nextRawEntry()
            if let previous, previous >= entry.key { throw RecordPackingError(reason: "fields out of order", offset: reader.offset) }
            previous = entry.key
        }
        bytes = packed
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var unpacker: RecordUnpacker? { try? RecordUnpacker(bytes: bytes) }

    /// The account that owns the object, for exact account clearing.
    public var accountId: String? {
        get { unpacker?.accountId }
        set { repack(accountId: newValue) { _ in true } }
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
    public var isEmpty: Bool {
        unpacker?.isAtEnd ?? true
    }

    /// The object's `__typename`, when stored.
    public var typename: String? {
        if case .value(.string(let name))? = entry("__typename")?.value { name } else { nil }
    }

    /// One field's value and write time, found by scanning the packed fields.
    public func entry(_ key: String) -> (value: RecordValue, writtenAt: Date)? {
        guard var reader = unpacker else { return nil }
        var key = key
        return key.withUTF8 { wanted in
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
        forEachRawEntry { keys.append($0.key) }
        return keys
    }

    /// Calls `body` with every field, in key order.
    func forEachEntry(_ body: (String, RecordValue, Date) -> Void) {
        guard var reader = unpacker else { return }
        while !reader.isAtEnd, let entry = try? reader.nextEntry() {
            body(entry.key, entry.value, entry.writtenAt)
        }
    }

    private func forEachRawEntry(_ body: (RecordUnpacker.RawEntry) -> Void) {
        guard var reader = unpacker else { return }
        while !reader.isAtEnd, let entry = try? reader.nextRawEntry() { body(entry) }
    }

    /// Rebuilds the record with this account, keeping the entries `keep` accepts.
    private mutating func repack(accountId: String?, keep: (RecordUnpacker.RawEntry) -> Bool) {
        var packer = RecordPacker(accountId: accountId)
        let source = bytes
        forEachRawEntry { entry in
            if keep(entry) { packer.appendRaw(entry.key, writtenAt: entry.writtenAt, value: source, entry.valueRange) }
        }
        bytes = packer.packed
    }

    /// Writes `incoming`'s fields over these (their write times too; an incoming account id
    /// replaces this one) and returns the keys of the fields whose value changed.
    mutating func merge(_ incoming: NormalizedRecord) -> [String] {
        guard var mine = unpacker, var theirs = incoming.unpacker else {
            self = incoming
            return incoming.keys
        }
        if let changed = sameFieldsMerge(incoming, mine, theirs) { return changed }
        var packer = RecordPacker(accountId: theirs.accountId ?? mine.accountId)
        var changed: [String] = []
        var left = mine.isAtEnd ? nil : try? mine.nextRawEntry()
        var right = theirs.isAtEnd ? nil : try? theirs.nextRawEntry()
        while left != nil || right != nil {
            if let l = left, right.map({ l.key < $0.key }) ?? true {
                packer.appendRaw(l.key, writtenAt: l.writtenAt, value: bytes, l.valueRange)
                left = mine.isAtEnd ? nil : try? mine.nextRawEntry()
            } else if let r = right {
                if let l = left, l.key == r.key {
                    if !bytes[l.valueRange].elementsEqual(incoming.bytes[r.valueRange]) { changed.append(r.key) }
                    left = mine.isAtEnd ? nil : try? mine.nextRawEntry()
                } else {
                    changed.append(r.key)
                }
                packer.appendRaw(r.key, writtenAt: r.writtenAt, value: incoming.bytes, r.valueRange)
                right = theirs.isAtEnd ? nil : try? theirs.nextRawEntry()
            }
        }
        bytes = packer.packed
        return changed
    }

    /// The common refetch: `incoming` carries exactly this record's fields. The result is then `incoming`'s
    /// bytes as they are, without repacking (taken only when `incoming` names the account, or neither does); returns the fields whose
    /// value changed, or `nil` when the field sets differ.
    private mutating func sameFieldsMerge(_ incoming: NormalizedRecord, _ mine: RecordUnpacker, _ theirs: RecordUnpacker) -> [String]? {
        var mine = mine
        var theirs = theirs
        guard theirs.accountRange != nil || mine.accountRange == nil else { return nil }
        var changed: [String] = []
        while !mine.isAtEnd || !theirs.isAtEnd {
            guard !mine.isAtEnd, !theirs.isAtEnd, let l = try? mine.nextEntryRanges(), let r = try? theirs.nextEntryRanges(),
                bytes[l.key].elementsEqual(incoming.bytes[r.key])
            else { return nil }
            if !bytes[l.value].elementsEqual(incoming.bytes[r.value]) {
                changed.append(String(decoding: incoming.bytes[r.key], as: UTF8.self))
            }
        }
        self = incoming
        return changed
    }

    /// Sets one field.
    mutating func set(_ key: String, _ value: RecordValue, writtenAt date: Date) {
        var single = RecordPacker(accountId: nil)
        single.append(key, value, writtenAt: date)
        _ = merge(NormalizedRecord(bytes: single.packed))
    }

    /// Removes one field; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        var removed = false
        repack(accountId: accountId) { entry in
            if entry.key == key { removed = true }
            return entry.key != key
        }
        return removed
    }

    /// Every field stamped at `date`.
    mutating func restamp(_ date: Date) {
        var fields: [(String, RecordValue)] = []
        forEachEntry { key, value, _ in fields.append((key, value)) }
        self = NormalizedRecord(fields: fields, writtenAt: date, accountId: accountId)
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
    /// Where a query's root fields are stored (Apollo's `QUERY_ROOT`).
    public static let query = "QUERY_ROOT"
    /// Where a mutation's root fields are stored.
    public static let mutation = "MUTATION_ROOT"
}
