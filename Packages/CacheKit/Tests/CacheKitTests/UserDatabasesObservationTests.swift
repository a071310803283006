import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

/// ``UserDatabases/observe(lease:tables:empty:_:)``: the value now, again after each commit, nothing once
/// the files are cleared, never another user's, and nothing left running once the screen goes away.
@Suite(.timeLimit(.minutes(10))) struct UserDatabasesObservationTests {
    private func withFiles(_ body: (UserDatabases) async throws -> Void) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, page INTEGER); CREATE TABLE other (id INTEGER PRIMARY KEY)")
        }
        try await body(UserDatabases(directory: folder.url.appendingPathComponent("items"), prefix: "items", migrator: migrator))
    }

    private func count(_ files: UserDatabases, _ user: String) -> ObservationRecorder<Int> {
        ObservationRecorder(
            files.observe(lease: files.lease(for: user), tables: ["item"], empty: 0) { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0
            })
    }

    private func addPage(_ files: UserDatabases, _ user: String, items: Int) throws {
        try files.database(for: files.lease(for: user)).write { db in
            for _ in 0..<items { try db.execute(sql: "INSERT INTO item (page) VALUES (1)") }
        }
    }

    @Test func itYieldsEmptyBeforeTheFileThenTheValueAfterEachCommit() async throws {
        try await withFiles { files in
            let recorder = count(files, "alice")
            try await recorder.wait("the empty value before any file") { $0 == [0] }
            #expect(!FileManager.default.fileExists(atPath: files.directory.path), "observing creates no file")
            try addPage(files, "alice", items: 10)
            try await recorder.wait("the first page, once its write created the file") { $0.last == 10 }
            try addPage(files, "alice", items: 5)
            try await recorder.wait("the second page") { $0.last == 15 }
            #expect(recorder.values == recorder.values.sorted(), "values in commit order: \(recorder.values)")
        }
    }

    @Test func anObservationOfAnOpenFileStartsWithItsValue() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 3)
            let recorder = count(files, "alice")
            try await recorder.wait("the value already stored") { $0.last == 3 }
            #expect(recorder.values == [3], "no empty value first when the file exists: \(recorder.values)")
        }
    }

    @Test func aCommitThatChangesNothingReadYieldsNothing() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 2)
            let recorder = count(files, "alice")
            try await recorder.wait("the value") { $0 == [2] }
            try await files.database(for: files.lease(for: "alice")).write { db in try db.execute(sql: "UPDATE item SET page = 2") }
            try await files.database(for: files.lease(for: "alice")).write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
            try addPage(files, "alice", items: 1)
            try await recorder.wait("the next page") { $0.last == 3 }
            #expect(recorder.values == [2, 3], "an equal value is not yielded again: \(recorder.values)")
        }
    }

    @Test func aLogoutYieldsTheEmptyValueAndEndsTheObservation() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 4)
            let recorder = count(files, "alice")
            try await recorder.wait("alice's items") { $0.last == 4 }
            try files.removeAll()
            try await recorder.waitUntilFinished()
            #expect(recorder.values == [4, 0], "nothing after the logout: \(recorder.values)")
            #expect(recorder.failure == nil)
            // A write of the next user (or of alice signing in again) reaches nobody observing the old session.
            try addPage(files, "alice", items: 1)
            #expect(recorder.values == [4, 0])
            #expect(files.observationCount == 0)
        }
    }

    @Test func anObservationBegunWithALeaseFromBeforeALogoutEndsAtOnce() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 2)
            let stale = files.lease(for: "alice")  // the screen read the user, then the logout came
            try files.removeAll()
            let recorder = ObservationRecorder(files.observe(lease: stale, empty: -1) { db in try Int.fetchOne(db, sql: "SELECT 1") ?? 0 })
            try await recorder.waitUntilFinished()
            #expect(recorder.values == [-1] && files.observationCount == 0, "\(recorder.values)")
            // Positive control: a lease of now observes.
            let live = ObservationRecorder(
                files.observe(lease: files.lease(for: "alice"), empty: -1) { db in try Int.fetchOne(db, sql: "SELECT 1") ?? 0 })
            try addPage(files, "alice", items: 1)
            try await live.wait("the new file's value") { $0.last == 1 }
            #expect(!live.isFinished)
        }
    }

    @Test func anAccountDeletionEndsThatUsersObservationsOnly() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 1)
            try addPage(files, "bob", items: 2)
            let alice = count(files, "alice")
            let bob = count(files, "bob")
            try await alice.wait("alice's item") { $0.last == 1 }
            try await bob.wait("bob's items") { $0.last == 2 }
            try files.erase(userId: "alice")
            try await alice.waitUntilFinished()
            #expect(alice.values == [1, 0])
            try addPage(files, "bob", items: 1)
            try await bob.wait("bob's next item, his observation going on") { $0.last == 3 }
            #expect(!bob.isFinished)
        }
    }

    @Test func anObservationNeverSeesAnotherUsersFile() async throws {
        try await withFiles { files in
            let bob = count(files, "bob")
            try await bob.wait("bob's empty list") { $0 == [0] }
            try addPage(files, "alice", items: 7)
            try addPage(files, "bob", items: 1)
            try await bob.wait("bob's own item") { $0.last == 1 }
            #expect(bob.values == [0, 1], "alice's seven never reached bob: \(bob.values)")
        }
    }

    @Test func aScreenThatGoesAwayStopsItsObservation() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 1)
            let recorder = count(files, "alice")
            try await recorder.wait("the value") { $0.last == 1 }
            #expect(files.observationCount == 1, "positive control: the observation is registered")
            recorder.cancel()
            try await waitUntil("the cancelled observation to be dropped") { files.observationCount == 0 }
            try addPage(files, "alice", items: 1)
            #expect(recorder.values == [1])
        }
    }

    @Test func aReadThatFailsEndsTheObservationWithItsError() async throws {
        try await withFiles { files in
            try addPage(files, "alice", items: 1)
            let recorder = ObservationRecorder(
                files.observe(lease: files.lease(for: "alice"), empty: 0) { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM missing") ?? 0
                })
            try await recorder.waitUntilFinished()
            #expect(recorder.failure is DatabaseError)
            #expect(recorder.values.isEmpty)
        }
    }
}
