import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// A child process (this test binary, filtered to ``childChangesAndSeals()``) changes a disk store told to its
/// snapshots, reads it back and saves the snapshot sealed, again and again, until it is killed with SIGKILL.
/// Whatever the moment, a snapshot the relaunch finds current holds what the store holds. Half the trials kill
/// the child while a seal is on disk, the moment a change that forgot to unseal first would be caught.
@Suite(.timeLimit(.minutes(10))) struct CurrentSnapshotCrashTests {
    static let childVariable = "CACHEKIT_CURRENT_SNAPSHOT_CRASH_CHILD"
    static let until = Date().addingTimeInterval(86_400)

    @Test func aSnapshotFoundCurrentAfterAKillAtAnyMomentHoldsWhatTheStoreHolds() async throws {
        var killedSealed = 0
        for trial in 1...6 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let folder = directory.url.appendingPathComponent("snapshots")
            let started = directory.url.appendingPathComponent("started")
            let child = try CrashChild.start(test: "childChangesAndSeals", environment: [Self.childVariable: directory.url.path])
            try await child.waitUntilStarted(signalledBy: started)
            if trial.isMultiple(of: 2) {
                let sealed = { FileManager.default.fileExists(atPath: folder.appendingPathComponent("current.seals").path) }
                if try await child.killWhenPaused(where: sealed) { killedSealed += 1 }
            } else {
                try await child.kill(after: .milliseconds(Int.random(in: 5...80)))
            }

            let snapshots = ScreenSnapshots(directory: folder)
            let last = try #require(snapshots.load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1"), "trial \(trial)")
            let store = DiskStore(configuration: .init(directory: directory.url.appendingPathComponent("store")), changes: snapshots)
            let held = store.peek("balance").flatMap { Int(String(decoding: $0.value, as: UTF8.self)) }
            if last.isCurrent {
                #expect(
                    last.value.balance == held, "trial \(trial): a current snapshot of \(last.value.balance), the store holds \(held ?? -1)"
                )
            }
            try store.set(Data("-1".utf8), forKey: "balance", metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil))
            #expect(
                snapshots.load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1")?.isCurrent == false,
                "trial \(trial): the relaunched process's first change unseals it")
        }
        #expect(killedSealed > 0, "no kill landed while a seal was on disk")
    }

    /// Only in the child process (skipped otherwise): changes, reads and seals in a loop until killed (at most 60 s).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the crash test's child"))
    func childChangesAndSeals() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let directory = URL(fileURLWithPath: path)
        let snapshots = ScreenSnapshots(directory: directory.appendingPathComponent("snapshots"))
        let store = DiskStore(configuration: .init(directory: directory.appendingPathComponent("store")), changes: snapshots)
        let deadline = Date().addingTimeInterval(60)
        var generation = 0
        while Date() < deadline {
            try store.set(Data("\(generation)".utf8), forKey: "balance", metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil))
            let mark = snapshots.mark()
            let held = store.peek("balance").flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? -2
            try snapshots.save(
                ScreenSnapshotsTests.Home(balance: held, names: []), screen: "home", user: "u1", at: Date(), readSince: mark,
                currentUntil: Self.until)
            if generation == 20 { try Data().write(to: directory.appendingPathComponent("started")) }
            generation += 1
        }
    }
}
