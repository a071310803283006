import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// A child process (this test binary, filtered to ``childSavesSnapshots()``) saves a screen's snapshot
/// again and again, and now and then clears them all, until it is killed with SIGKILL at a random moment.
/// Whatever the moment, the relaunched store reads no snapshot or a whole one (never a mix of two saves),
/// and its next save leaves nothing but the snapshot in the folder.
@Suite(.timeLimit(.minutes(5))) struct ScreenSnapshotsCrashTests {
    static let childVariable = "CACHEKIT_SNAPSHOTS_CRASH_CHILD"

    /// What the screen shows at `generation`: about 20 KB that follow from it, so a write takes a while.
    static func screen(_ generation: Int) -> ScreenSnapshotsTests.Home {
        ScreenSnapshotsTests.Home(balance: generation, names: (0..<400).map { "account \(generation)-\($0) of the day" })
    }

    @Test func aSaveKilledAtAnyMomentLeavesTheOldSnapshotOrTheNewOneAndNoStrayFile() async throws {
        var snapshotsRead = 0
        for trial in 0..<6 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let folder = directory.url.appendingPathComponent("snapshots")
            let started = directory.url.appendingPathComponent("started")
            let child = try CrashChild.start(test: "childSavesSnapshots", environment: [Self.childVariable: folder.path])
            try await child.waitUntilStarted(signalledBy: started)
            try await child.kill(after: .milliseconds(Int.random(in: 5...80)))

            let snapshots = ScreenSnapshots(directory: folder)
            if let last = snapshots.load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1") {
                snapshotsRead += 1
                #expect(last.value == Self.screen(last.value.balance), "trial \(trial): a snapshot of no single save")
            }
            try snapshots.save(Self.screen(-1), screen: "home", user: "u1", at: Date(), readSince: snapshots.mark())
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files == ["home.snapshot"], "trial \(trial): files beside the snapshot: \(files)")
        }
        #expect(snapshotsRead > 0, "no trial left a snapshot to check")
    }

    /// Only in the child process (skipped otherwise): saves in a loop, clearing every 50th, until killed
    /// (at most 60 s).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the crash test's child"))
    func childSavesSnapshots() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let folder = URL(fileURLWithPath: path)
        let snapshots = ScreenSnapshots(directory: folder)
        let deadline = Date().addingTimeInterval(60)
        var generation = 0
        while Date() < deadline {
            try snapshots.save(Self.screen(generation), screen: "home", user: "u1", at: Date(), readSince: snapshots.mark())
            if generation % 50 == 49 { try snapshots.clearAll() }
            if generation == 20 { try Data().write(to: folder.deletingLastPathComponent().appendingPathComponent("started")) }
            generation += 1
        }
    }
}
