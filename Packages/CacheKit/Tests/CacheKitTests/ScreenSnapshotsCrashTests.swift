import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// A child process (this test binary, filtered to ``childSavesSnapshots()``) saves a screen's snapshot
/// again and again until it is killed with SIGKILL at a random moment. Whatever the moment, the relaunched
/// store reads a whole snapshot of one save made after the child said it had started (never a mix of two,
/// never none), and its next save leaves nothing but the snapshot in the folder, the temporary file of a
/// write the kill cut short included. Half the trials kill the child while a write is half done.
@Suite(.timeLimit(.minutes(10))) struct ScreenSnapshotsCrashTests {
    static let childVariable = "CACHEKIT_SNAPSHOTS_CRASH_CHILD"

    /// What the screen shows at `generation`: about 20 KB that follow from it, so a write takes a while.
    static func screen(_ generation: Int) -> ScreenSnapshotsTests.Home {
        ScreenSnapshotsTests.Home(balance: generation, names: (0..<400).map { "account \(generation)-\($0) of the day" })
    }

    @Test func aSaveKilledAtAnyMomentLeavesTheOldSnapshotOrTheNewOneAndNoStrayFile() async throws {
        var cutShort = 0
        for trials in 1...6 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let folder = directory.url.appendingPathComponent("snapshots")
            let started = directory.url.appendingPathComponent("started")
            let child = try CrashChild.start(test: "childSavesSnapshots", environment: [Self.childVariable: folder.path])
            try await child.waitUntilStarted(signalledBy: started)
            // Every other trial is killed at a random moment; the others while a write is half done (the
            // child paused until its temporary file is there), so the stray-file cleanup is always exercised.
            func halfWritten() -> Bool {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains { $0.hasSuffix(".tmp") }
            }
            if trials.isMultiple(of: 2) {
                if try await child.killWhenPaused(where: halfWritten) { cutShort += 1 }
            } else {
                try await child.kill(after: .milliseconds(Int.random(in: 5...80)))
                if halfWritten() { cutShort += 1 }
            }

            let snapshots = ScreenSnapshots(directory: folder)
            let last = snapshots.load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1")
            #expect(last != nil, "trial \(trials): the snapshots saved before the kill are gone")
            if let last {
                #expect(last.value.balance >= 20, "trial \(trials): a snapshot older than the child's start")
                #expect(last.value == Self.screen(last.value.balance), "trial \(trials): a snapshot of no single save")
            }
            try snapshots.save(Self.screen(-1), screen: "home", user: "u1", at: Date(), readSince: snapshots.mark())
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files == ["home.snapshot"], "trial \(trials): files beside the snapshot: \(files)")
        }
        #expect(cutShort > 0, "no kill landed inside a write: the stray-file cleanup was not exercised")
    }

    /// Only in the child process (skipped otherwise): saves in a loop until killed
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
            if generation == 20 { try Data().write(to: folder.deletingLastPathComponent().appendingPathComponent("started")) }
            generation += 1
        }
    }
}
