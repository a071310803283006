import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

/// ``UserDatabases`` at its edges: a write of work begun before a clearing is refused and recreates
/// nothing, a read never creates a file, and many readers beside a writer on one file never fail.
@Suite(.timeLimit(.minutes(10))) struct UserDatabasesTests {
    private func withFiles(_ body: (UserDatabases) async throws -> Void) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, page INTEGER)") }
        try await body(UserDatabases(directory: folder.url.appendingPathComponent("items"), prefix: "items", migrator: migrator))
    }

    @Test func aLeaseTakenBeforeALogoutIsRefusedAndRecreatesNothing() async throws {
        try await withFiles { files in
            let lease = files.lease(for: "alice")
            try files.database(for: lease).write { db in try db.execute(sql: "INSERT INTO item (page) VALUES (1)") }
            try files.removeAll()
            #expect(throws: CacheError.cleared) { try files.database(for: lease) }
            #expect(!FileManager.default.fileExists(atPath: files.directory.path), "nothing recreated after the logout")
            // Positive control: a lease taken after the clearing writes.
            let next = files.lease(for: "alice")
            try files.database(for: next).write { db in try db.execute(sql: "INSERT INTO item (page) VALUES (2)") }
            #expect(FileManager.default.fileExists(atPath: files.fileURL(for: "alice").path))
        }
    }

    @Test func anAccountDeletionRefusesTheLeasesTakenBeforeIt() async throws {
        try await withFiles { files in
            let lease = files.lease(for: "alice")
            _ = try files.database(for: lease)
            try files.erase(userId: "alice")
            #expect(throws: CacheError.cleared) { try files.database(for: lease) }
            #expect(!FileManager.default.fileExists(atPath: files.fileURL(for: "alice").path))
        }
    }

    @Test func aHandleKeptAcrossALogoutIsRefusedRatherThanTouchingTheClosedFile() async throws {
        try await withFiles { files in
            let lease = files.lease(for: "alice")
            try await files.database(for: lease).write { db in try db.execute(sql: "INSERT INTO item (page) VALUES (1)") }
            // A reader and a writer that took the handle before the logout, and use it after.
            let reader = try #require(try files.existingDatabase(for: "alice"))
            let writer = try files.database(for: lease)
            func count(_ database: UserDatabase) throws -> Int? {  // the blocking read
                try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") }
            }
            #expect(try count(reader) == 1, "positive control")
            try files.removeAll()
            #expect(throws: CacheError.cleared) { try count(reader) }
            await #expect(throws: CacheError.cleared) { try await reader.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
            #expect(throws: CacheError.cleared) { try writer.write { db in try db.execute(sql: "INSERT INTO item (page) VALUES (2)") } }
            #expect(throws: CacheError.cleared) { try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) } }
            #expect(!FileManager.default.fileExists(atPath: files.directory.path), "nothing recreated")
        }
    }

    @Test func aReadNeverCreatesAFile() async throws {
        try await withFiles { files in
            #expect(try files.existingDatabase(for: "alice") == nil)
            #expect(!FileManager.default.fileExists(atPath: files.directory.path), "not even the folder or its key")
            _ = try files.database(for: files.lease(for: "alice"))
            #expect(try files.existingDatabase(for: "alice") != nil, "positive control: the file once written is read")
            try files.removeAll()
            #expect(try files.existingDatabase(for: "alice") == nil)
            #expect(!FileManager.default.fileExists(atPath: files.directory.path))
        }
    }

    @Test func readersBesideAWriterOnAFileBeingCreatedNeverFail() async throws {
        try await withFiles { files in
            let lease = files.lease(for: "alice")
            // A read that fails (a file half created, a busy database) throws out of the group and fails the test.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for page in 1...20 {
                        try files.database(for: lease).write { db in
                            for _ in 0..<10 { try db.execute(sql: "INSERT INTO item (page) VALUES (?)", arguments: [page]) }
                        }
                    }
                }
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<200 {
                            _ = try files.existingDatabase(for: "alice")?.read { db in
                                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let database = try #require(try files.existingDatabase(for: "alice"))
            let total = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") }
            #expect(total == 200)
        }
    }

    /// A page is one transaction: a write that throws part way leaves none of its rows. (A reader cannot see
    /// part of a page either way: reads queue behind the write on the file's one connection.)
    @Test func aWriteThatThrowsPartWayLeavesNoneOfItsRows() async throws {
        struct Cut: Error {}
        try await withFiles { files in
            let database = try files.database(for: files.lease(for: "alice"))
            try database.write { db in try db.execute(sql: "INSERT INTO item (page) VALUES (1)") }
            #expect(throws: Cut.self) {
                try database.write { db in
                    for _ in 0..<3 { try db.execute(sql: "INSERT INTO item (page) VALUES (2)") }
                    throw Cut()
                }
            }
            let pages = try database.read { db in try Int.fetchAll(db, sql: "SELECT page FROM item") }
            #expect(pages == [1], "the cut page's rows stayed: \(pages)")
        }
    }
}
