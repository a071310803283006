import CacheKit
import CacheKitTesting
import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL

/// `SQLiteRecordStore` writes through a write-ahead log with `synchronous=NORMAL` and clears by moving its
/// file aside. A child process (this test binary, filtered to ``childMerges()``) merges generations of
/// records, and now and then clears everything, until it is killed with SIGKILL at a random moment. Whatever
/// the moment, the relaunched store reads every record it has, and they all come from one merge: a
/// transaction is in the file whole or not at all.
@Suite(.timeLimit(.minutes(10))) struct RecordStoreCrashTests {
    static let childVariable = "APICORE_RECORD_STORE_CRASH_CHILD"
    static let recordCount = 40

    static func records(generation: Int) -> [String: NormalizedRecord] {
        var records: [String: NormalizedRecord] = [:]
        for index in 0..<recordCount {
            records["Item:\(index)"] = NormalizedRecord(
                fields: [
                    "generation": .value(.int(generation)),
                    "text": .value(.string(String(repeating: "x", count: 200 + index))),
                ],
                writtenAt: [:])
        }
        return records
    }

    @Test func aStoreKilledAtAnyMomentReopensWithOneWholeMerge() async throws {
        var confirmedMerges = 0
        for trial in 0..<15 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let url = directory.url.appendingPathComponent("records.sqlite")
            let started = directory.url.appendingPathComponent("started")
            let child = try CrashChild.start(test: "childMerges", environment: [Self.childVariable: url.path])
            try await child.waitUntilStarted(signalledBy: started)
            try await child.kill(after: .milliseconds(Int.random(in: 5...60)))

            let store = try SQLiteRecordStore(url: url)
            var generations: Set<Int> = []
            var found = 0
            for index in 0..<Self.recordCount {
                guard let record = try store.record(forKey: "Item:\(index)") else { continue }
                found += 1
                if case .value(.int(let generation))? = record.fields["generation"] { generations.insert(generation) }
            }
            #expect(generations.count <= 1, "trial \(trial): records from merges \(generations.sorted())")
            // What the child confirmed last, after its call returned, must be there (or the next step).
            let confirmed = try String(contentsOf: directory.url.appendingPathComponent("confirmed"), encoding: .utf8)
                .split(separator: " ")
            let step = try #require(confirmed.last.flatMap { Int($0) }, "trial \(trial): \(confirmed)")
            if confirmed.first == "merge", step % 25 == 24 {
                // The clear that follows this merge may have run before its confirmation was written.
                #expect(found == 0 || generations == [step], "trial \(trial): merge \(step) then a clear, found \(generations.sorted())")
            } else if confirmed.first == "merge" {
                confirmedMerges += 1
                #expect(found == Self.recordCount, "trial \(trial): merge \(step) was confirmed, \(found) records found")
                #expect(
                    generations == [step] || generations == [step + 1],
                    "trial \(trial): merge \(step) confirmed, found \(generations.sorted())")
            } else {
                #expect(
                    found == 0 || (found == Self.recordCount && generations == [step + 1]),
                    "trial \(trial): cleared after \(step), found \(found)")
            }
            try store.merge(Self.records(generation: -1))
            #expect(try store.usage().count == Self.recordCount)
        }
        #expect(confirmedMerges > 0, "no trial was killed after a confirmed merge")
    }

    /// Only in the child process (skipped otherwise): merges generation after generation, clearing every
    /// 25th, until killed (at most 60 s). After each call returns, it writes what it confirmed (`merge g`
    /// or `clear g`) to `confirmed`, atomically.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the crash test's child"))
    func childMerges() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let url = URL(fileURLWithPath: path)
        let confirmed = url.deletingLastPathComponent().appendingPathComponent("confirmed")
        let store = try SQLiteRecordStore(url: url)
        let deadline = Date().addingTimeInterval(60)
        var generation = 0
        while Date() < deadline {
            try store.merge(Self.records(generation: generation))
            try Data("merge \(generation)".utf8).write(to: confirmed, options: .atomic)
            if generation == 0 {
                try Data().write(to: url.deletingLastPathComponent().appendingPathComponent("started"))
            }
            if generation % 25 == 24 {
                try store.removeAll()
                try Data("clear \(generation)".utf8).write(to: confirmed, options: .atomic)
            }
            generation += 1
        }
    }
}
