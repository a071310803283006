import CacheKit
import Foundation
import GRDB

// Records refreshed on their own, between syncs: a contact's detail, the profile.
extension ContactsStore {
    /// Stores what a refresh brought (the changes kept on the device applied again over it) and when.
    /// - Throws: `CacheError.cleared` when the files were cleared since `lease` was taken.
    func storeRefresh(_ server: ServerValues, keys: [String], at date: Date, lease: UserDatabases.Lease) throws {
        let (database, index) = try opened(lease)
        try database.write { db in
            try Self.write(server, db, index: index)
            try Self.reapplyPendingChanges(db, index: index)
            for key in keys {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO refreshed (key, at) VALUES (?, ?)", arguments: [key, date.timeIntervalSince1970])
            }
        }
    }

    /// When the record `key` was last refreshed on its own, if ever.
    static func refreshedAt(_ key: String, _ db: Database) throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT at FROM refreshed WHERE key = ?", arguments: [key]).map(Date.init(timeIntervalSince1970:))
    }

    /// The refresh key of a contact's detail.
    static func refreshKey(contact id: String) -> String { "contact:\(id)" }
    /// The refresh key of the profile.
    static let profileRefreshKey = "profile"
}
