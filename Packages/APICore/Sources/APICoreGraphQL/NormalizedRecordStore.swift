import APICore
import CacheKit
import Foundation

/// Where normalized records live. ``InMemoryRecordStore`` is the default (REQ ARC-6: financial
/// data stays in memory).
public protocol NormalizedRecordStore: Sendable {
    /// The record under `key`, if any.
    /// - Throws: ``RecordStoreError/corrupt(key:reason:)`` for a stored record that does not decode.
    func record(forKey key: String) throws -> NormalizedRecord?
    /// Merges records field by field (fields not in `records` are kept) and returns every field
    /// whose value changed.
    @discardableResult
    func merge(_ records: [String: NormalizedRecord]) throws -> Set<FieldPath>
    /// Removes the records the predicate selects, and every field elsewhere that references one of
    /// them (so a read that meets it is a miss). Returns every field removed.
    @discardableResult
    func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<FieldPath>
    /// Removes these fields (`[recordKey: fieldKeys]`); returns those that were present.
    @discardableResult
    func removeFields(_ fields: [String: Set<String>]) throws -> Set<FieldPath>
    /// Marks every field as written long ago, so every query reading it is stale ("clear timestamps").
    func expireAll() throws
    /// Removes everything.
    func removeAll() throws
    /// How many records are stored and roughly how many bytes they take.
    func usage() throws -> CacheStoreUsage
    /// Evicts least recently used records until they take at most `bytes` (the app-wide budget).
    func trim(toBytes bytes: Int) throws
    /// Every record's key, size, account and oldest field write, for the debug export (values are
    /// never included). A record that does not decode is skipped.
    func describeRecords() throws -> [CacheEntryDescription]
    /// Whether what it holds outlives the process (a file): a screen read from it may then be shown as current
    /// at the next launch (`ScreenSnapshots`). `false` unless the store says so.
    var persistsAcrossLaunches: Bool { get }
    /// Opens what the store reads from, if it exists and is not open yet, so that its first read finds it open: an
    /// app's launch calls it beside its other work. Creates nothing where nothing is; a file found damaged is treated
    /// as its first read would treat it, and any other failure is left to the first use to report.
    func prepare()
}

extension NormalizedRecordStore {
    /// Kept in memory only, unless the store says otherwise.
    public var persistsAcrossLaunches: Bool { false }

    /// Nothing to open, unless the store says otherwise.
    public func prepare() {}
}

/// Why a record store failed.
public enum RecordStoreError: Error, Sendable, Hashable {
    /// A stored record does not decode (a truncated row, a foreign schema); it should be dropped.
    case corrupt(key: String, reason: String)
    /// The database could not be opened, read or written.
    case database(String)
}

extension RecordStoreError: CustomStringConvertible {
    /// The form for logs: the record's key redacted (it holds ids), the system's reason.
    public var description: String {
        switch self {
        case .corrupt(let key, let reason): "the stored record \(RedactedKey(key)) does not decode: \(reason)"
        case .database(let reason): "the record store failed: \(reason)"
        }
    }
}

extension NormalizedRecord {
    /// Every field of this record.
    func fieldPaths(key: String) -> Set<FieldPath> {
        Set(keys.map { FieldPath(key, $0) })
    }

    /// The fields that reference any of `keys`.
    func fields(referencing keys: Set<String>) -> [String] {
        fields.filter { !Set($0.value.references).isDisjoint(with: keys) }.map(\.key)
    }

    /// The packed size in bytes.
    var estimatedBytes: Int { bytes.count }

    /// How the debug export shows this record: stored when its oldest field was written, tagged with
    /// its account. Freshness depends on the query reading it, so it has no expiry of its own.
    func description(key: String) -> CacheEntryDescription {
        CacheEntryDescription(
            key: key, bytes: key.utf8.count + estimatedBytes,
            metadata: CacheEntryMetadata(
                storedAt: writtenAt.values.min() ?? .distantPast, expiresAt: nil, scope: CacheScope(accountId: accountId)))
    }
}

extension RecordStoreError: LocalizedError {
    /// A sentence for people: the stored data is reloaded from the server.
    public var errorDescription: String? { "Saved data could not be read. It will be loaded again." }
}
