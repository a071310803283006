import CacheKitTesting
import Foundation
import GRDB
import Testing

@testable import CacheKit

/// ``CacheDatabase/open(_:label:migrator:)``: a file's schema stamp stands for its applied migrations, so a
/// relaunch reads one pragma instead of the migrator's table, and every other file goes through the migrator.
@Suite(.timeLimit(.minutes(5))) struct CacheDatabaseTests {
    /// A migrator whose migrations count their runs in `runs`.
    private func migrator(_ names: [String], runs: Locked<[String]>) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in
                runs.withLock { $0.append(name) }
                try db.execute(sql: "CREATE TABLE \(name) (id INTEGER PRIMARY KEY)")
            }
        }
        return migrator
    }

    private func userVersion(_ url: URL) throws -> Int? {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
    }

    @Test func aNewFileIsMigratedAndStampedAndALaterMigrationRunsAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("db.sqlite")
        let runs = Locked<[String]>([])
        try CacheDatabase.open(url, label: "test", migrator: migrator(["v1"], runs: runs)).close()
        #expect(runs.withLock { $0 } == ["v1"])
        #expect(try userVersion(url) == CacheDatabase.stamp(of: migrator(["v1"], runs: Locked([]))))
        try CacheDatabase.open(url, label: "test", migrator: migrator(["v1"], runs: runs)).close()
        #expect(runs.withLock { $0 } == ["v1"], "opened again: nothing runs")
        // A newer app with one more migration: only that one runs, and the file is stamped for two.
        let queue = try CacheDatabase.open(url, label: "test", migrator: migrator(["v1", "v2"], runs: runs))
        #expect(try queue.read { try $0.tableExists("v2") })
        try queue.close()
        #expect(runs.withLock { $0 } == ["v1", "v2"])
        #expect(try userVersion(url) == CacheDatabase.stamp(of: migrator(["v1", "v2"], runs: Locked([]))))
    }

    @Test func aStampedFileIsTrustedWithoutReadingItsMigrations() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("db.sqlite")
        // Stamped for one migration, with no table of applied migrations: only the stamp can say it is migrated.
        let plain = try DatabaseQueue(path: url.path)
        let stamp = CacheDatabase.stamp(of: migrator(["v1"], runs: Locked([])))
        try plain.write { try $0.execute(sql: "PRAGMA user_version = \(stamp)") }
        try plain.close()
        let runs = Locked<[String]>([])
        try CacheDatabase.open(url, label: "test", migrator: migrator(["v1"], runs: runs)).close()
        #expect(runs.withLock { $0 }.isEmpty, "the stamp alone stands for the applied migration")
    }

    @Test func aFileMigratedBeforeStampsOrStampedByAnotherProgramGoesThroughTheMigrator() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // Migrated by an earlier version, which kept only GRDB's table of applied migrations.
        let earlier = folder.url.appendingPathComponent("earlier.sqlite")
        let runs = Locked<[String]>([])
        let queue = try DatabaseQueue(path: earlier.path)
        try migrator(["v1"], runs: runs).migrate(queue)
        try queue.close()
        try CacheDatabase.open(earlier, label: "test", migrator: migrator(["v1", "v2"], runs: runs)).close()
        #expect(runs.withLock { $0 } == ["v1", "v2"], "v1 is not run again; v2 is")
        #expect(try userVersion(earlier) == CacheDatabase.stamp(of: migrator(["v1", "v2"], runs: Locked([]))))
        // Another program's stamp, which happens to be the count of migrations: not ours, so migrated.
        let foreign = folder.url.appendingPathComponent("foreign.sqlite")
        let other = try DatabaseQueue(path: foreign.path)
        try other.write { try $0.execute(sql: "PRAGMA user_version = 1") }
        try other.close()
        let foreignRuns = Locked<[String]>([])
        try CacheDatabase.open(foreign, label: "test", migrator: migrator(["v1"], runs: foreignRuns)).close()
        #expect(foreignRuns.withLock { $0 } == ["v1"])
        // Another list of migrations of the same length (another branch's second one): its own runs.
        let branch = Locked<[String]>([])
        let queue2 = try CacheDatabase.open(earlier, label: "test", migrator: migrator(["v1", "v2_branch"], runs: branch))
        #expect(try queue2.read { try $0.tableExists("v2_branch") })
        try queue2.close()
        #expect(branch.withLock { $0 } == ["v2_branch"])
    }

    /// Two compositions over the same folder (a composition built again while the last one lives, or an app's
    /// extension beside it) open a new file at once: each open succeeds, and each migration is applied once.
    @Test func openingsOfOneNewFileAtOnceEachSucceedAndMigrateItOnce() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for round in 0..<20 {
            let url = folder.url.appendingPathComponent("db\(round).sqlite")
            let runs = Locked<[String]>([])
            let migrator = migrator(["v1", "v2"], runs: runs)
            let opened = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let queue = try CacheDatabase.open(url, label: "test", migrator: migrator)
                        defer { try? queue.close() }
                        try queue.write { try $0.execute(sql: "INSERT INTO v2 DEFAULT VALUES") }
                        return 1
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(opened == 4)
            #expect(Set(runs.withLock { $0 }) == ["v1", "v2"], "round \(round)")
            // A migration run twice at once is rolled back once: the file holds each once, and the stamp.
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            let (applied, rows) = try await queue.read {
                (
                    try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                    try Int.fetchOne($0, sql: "SELECT count(*) FROM v2")
                )
            }
            #expect(applied == ["v1", "v2"] && rows == 4, "round \(round)")
            #expect(try userVersion(url) == CacheDatabase.stamp(of: migrator), "round \(round)")
        }
    }

    /// Only what another opening causes is tried again: a file that is not a database, or a migration's own error,
    /// is thrown at once (a damaged cache file is discarded without waiting).
    @Test func anOpeningThatFailsOnItsOwnIsNotTriedAgain() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let runs = Locked(0)
        var failing = DatabaseMigrator()
        failing.registerMigration("v1") { db in
            runs.withLock { $0 += 1 }
            try db.execute(sql: "CREATE TABLE v1 (id INTEGER PRIMARY KEY REFERENCES nowhere)); -- a typo")
        }
        #expect(throws: DatabaseError.self) {
            try CacheDatabase.open(folder.url.appendingPathComponent("db.sqlite"), label: "test", migrator: failing)
        }
        #expect(runs.withLock { $0 } == 1)
        let garbage = folder.url.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x41, count: 8_192).write(to: garbage)
        let opened = Locked(0)
        #expect(throws: DatabaseError.self) {
            try CacheDatabase.besideAnotherOpening {
                opened.withLock { $0 += 1 }
                return try CacheDatabase.open(garbage, label: "test", migrator: migrator(["v1"], runs: Locked([])))
            }
        }
        #expect(opened.withLock { $0 } == 1)
    }

    /// The attack: a clearing killed after it moved the file away but before its log. The next file created at that
    /// path must not take the old log's rows: a new database starts with a rollback journal, and its switch to the
    /// write-ahead log starts a new log over the old one.
    @Test func aLogLeftWithoutItsFileIsNotReplayedIntoTheNextOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("cache.sqlite")
        let writer = try CacheDatabase.open(url, label: "test")
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE cleared (secret TEXT)")
            try db.execute(sql: "INSERT INTO cleared VALUES ('THE-LAST-USERS-SECRET')")
        }
        // The log as the clearing found it, with the committed rows not yet copied into the file.
        let log = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(log.range(of: Data("THE-LAST-USERS-SECRET".utf8)) != nil)
        try writer.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try log.write(to: URL(fileURLWithPath: url.path + "-wal"))

        let next = try CacheDatabase.open(url, label: "test")
        defer { try? next.close() }
        let tables = try next.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master") }
        #expect(tables.isEmpty, "the old log was replayed: \(tables)")
        #expect(!directory.anyFileContains("THE-LAST-USERS-SECRET"))
    }
}
