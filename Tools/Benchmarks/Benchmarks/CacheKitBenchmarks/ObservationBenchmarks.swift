import Benchmark
import CacheKit
import Foundation
import GRDB

// Reads that update themselves, side by side in one run: a list of 50 rows (a screen's first page, in name
// order, each row's ~300 B JSON decoded) observed with UserDatabases.observe over a file of 10,000 rows, and
// a sync page of 500 rows committed in one transaction that changes those 50. Measured: the time from the
// page's commit (its write returned) to the observer's new value; the baseline is the same 50 rows read by
// hand right after the commit, what a screen that re-reads on its own pays.

struct ObservedRow: Codable, Equatable, Sendable {
    var id: String
    var name: String
    var phones: [String]
    var emails: [String]
    var version: Int
}

/// A file of 10,000 rows, its lease, and an observation of its first 50.
final class ObservedFile: @unchecked Sendable {
    let files: UserDatabases
    let lease: UserDatabases.Lease
    var iterator: AsyncThrowingStream<[ObservedRow], any Error>.Iterator?
    var version = 0

    init(observing: Bool) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contact (id TEXT PRIMARY KEY NOT NULL, sortKey TEXT NOT NULL, body BLOB NOT NULL);
                    CREATE INDEX contact_by_name ON contact (sortKey, id);
                    """)
        }
        files = UserDatabases(directory: temporaryDirectory("observe"), prefix: "contacts", migrator: migrator)
        lease = files.lease(for: "u1")
        try files.database(for: lease).write { db in
            for index in 0..<10_000 { try Self.save(index, version: 0, db) }
        }
        if observing {
            iterator = files.observe(lease: files.lease(for: "u1"), tables: ["contact"], empty: []) { db in try Self.firstPage(db) }.makeAsyncIterator()
        }
    }

    static func save(_ index: Int, version: Int, _ db: Database) throws {
        let row = ObservedRow(
            id: "c\(index)", name: "Person \(String(format: "%05d", index)) Surname", phones: ["+44 20 7946 \(index % 10_000)"],
            emails: ["person.\(index)@example.com"], version: version)
        try db.execute(
            sql: "INSERT OR REPLACE INTO contact (id, sortKey, body) VALUES (?, ?, ?)",
            arguments: [row.id, row.name.lowercased(), try JSONEncoder().encode(row)])
    }

    static func firstPage(_ db: Database) throws -> [ObservedRow] {
        try Data.fetchAll(db, sql: "SELECT body FROM contact ORDER BY sortKey, id LIMIT 50").map {
            try JSONDecoder().decode(ObservedRow.self, from: $0)
        }
    }

    /// Commits a page of 500 rows, the first 50 among them, at a new version.
    func commitPage() throws {
        version += 1
        let version = self.version
        try files.database(for: lease).write { db in
            for index in 0..<500 { try Self.save(index, version: version, db) }
        }
    }

    /// Waits for the observer's value at the current version.
    func nextObservedPage() async throws {
        while let page = try await iterator?.next() {
            if page.first?.version == version { return }
        }
    }
}

func observationBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 300)

    Benchmark("Observed list of 50, a page of 500 committed: commit to the observer's new value", configuration: configuration) {
        (benchmark: Benchmark, file: ObservedFile) in
        try file.commitPage()
        benchmark.startMeasurement()
        try await file.nextObservedPage()
        benchmark.stopMeasurement()
    } setup: {
        let file = try ObservedFile(observing: true)
        try await file.nextObservedPage()
        return file
    }

    Benchmark("Observed list of 50, a page of 500 committed: the same 50 read by hand after the commit (baseline)", configuration: configuration) {
        (benchmark: Benchmark, file: ObservedFile) in
        try file.commitPage()
        benchmark.startMeasurement()
        let page = try await file.files.database(for: file.lease).read { db in try ObservedFile.firstPage(db) }
        benchmark.stopMeasurement()
        precondition(page.first?.version == file.version)
    } setup: {
        try ObservedFile(observing: false)
    }
}
