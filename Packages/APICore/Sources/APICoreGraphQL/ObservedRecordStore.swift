import CacheKit
import Foundation

/// A record store that tells `changes` before and after each change to what `base` holds (a merge, a
/// removal, an expiry, a clearing, a trim): the client's store when its environment names a
/// ``CacheEnvironment/storeChanges``. Reads pass through untold.
struct ObservedRecordStore: NormalizedRecordStore {
    let base: any NormalizedRecordStore
    let changes: any StoreChangeObserver

    /// `base`, told to `changes` when there are any.
    static func wrapping(_ base: any NormalizedRecordStore, changes: (any StoreChangeObserver)?) -> any NormalizedRecordStore {
        guard let changes else { return base }
        return ObservedRecordStore(base: base, changes: changes)
    }

    func record(forKey key: String) throws -> NormalizedRecord? { try base.record(forKey: key) }

    func merge(_ records: [String: NormalizedRecord]) throws -> Set<FieldPath> {
        try changes.around { try base.merge(records) }
    }

    func removeRecords(where predicate: @Sendable (String, NormalizedRecord) -> Bool) throws -> Set<FieldPath> {
        try changes.around { try base.removeRecords(where: predicate) }
    }

    func removeFields(_ fields: [String: Set<String>]) throws -> Set<FieldPath> {
        try changes.around { try base.removeFields(fields) }
    }

    func expireAll() throws { try changes.around { try base.expireAll() } }

    func removeAll() throws { try changes.around { try base.removeAll() } }

    func usage() throws -> CacheStoreUsage { try base.usage() }

    func trim(toBytes bytes: Int) throws { try changes.around { try base.trim(toBytes: bytes) } }

    func describeRecords() throws -> [CacheEntryDescription] { try base.describeRecords() }

    var persistsAcrossLaunches: Bool { base.persistsAcrossLaunches }

    func prepare() { base.prepare() }
}
