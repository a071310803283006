import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// Current snapshots (``ScreenSnapshots``): a snapshot vouches for what the stores hold only while it is
/// fresh and no store has changed since the read it was saved from; every change unseals it before it writes.
@Suite(.timeLimit(.minutes(10))) struct CurrentSnapshotTests {
    static let home = ScreenSnapshotsTests.home
    static let savedAt = ScreenSnapshotsTests.savedAt
    static let until = savedAt.addingTimeInterval(300)

    /// Snapshots in `directory`, `home` saved for `u1` and sealed until ``until``.
    static func sealed(in directory: TemporaryDirectory) throws -> ScreenSnapshots {
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        #expect(try snapshots.save(home, screen: "home", user: "u1", at: savedAt, readSince: snapshots.mark(), currentUntil: until))
        return snapshots
    }

    static func isCurrent(_ snapshots: ScreenSnapshots, at now: Date = savedAt.addingTimeInterval(60)) -> Bool {
        ScreenSnapshots(directory: snapshots.directory).load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1", at: now)?.isCurrent
            ?? false
    }

    @Test func aSnapshotSavedWithNoChangeIsCurrentFromItsSavingUntilItsEnd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        #expect(Self.isCurrent(snapshots), "a relaunch within its freshness finds it current")
        #expect(Self.isCurrent(snapshots, at: Self.until.addingTimeInterval(-1)))
        #expect(!Self.isCurrent(snapshots, at: Self.until), "its freshness has ended")
        #expect(!Self.isCurrent(snapshots, at: Self.savedAt.addingTimeInterval(-1)), "the clock set back before its saving")
        let seal = snapshots.directory.appendingPathComponent("current.seals")
        #expect(ProtectedFiles.permissions(of: seal) == 0o600)

        #expect(try snapshots.save(Self.home, screen: "home", user: "u1", at: Self.savedAt, readSince: snapshots.mark()))
        #expect(!Self.isCurrent(snapshots), "saved again without an end of freshness: unsealed")
        #expect(!FileManager.default.fileExists(atPath: seal.path))
    }

    /// `isSealed` answers from the seal alone (an app's composition asks it before opening the caches' files).
    @Test func isSealedWhileTheSealHoldsForThatScreenOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        #expect(snapshots.isSealed("home", at: Self.savedAt.addingTimeInterval(60)))
        #expect(!snapshots.isSealed("home", at: Self.until), "its freshness has ended")
        #expect(!snapshots.isSealed("settings", at: Self.savedAt), "another screen")
        snapshots.storeWillChange()
        #expect(!snapshots.isSealed("home", at: Self.savedAt.addingTimeInterval(60)), "a store changed")
        snapshots.storeDidChange()
    }

    /// A change under way when the read began, or begun since, may not be in what was read.
    @Test(arguments: ["under way at the mark", "begun and ended since", "begun since"])
    func aChangeDuringTheReadLeavesTheSnapshotUnsealed(_ timing: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        if timing == "under way at the mark" { snapshots.storeWillChange() }
        let mark = snapshots.mark()
        switch timing {
        case "under way at the mark": snapshots.storeDidChange()
        case "begun and ended since": snapshots.around {}
        default: snapshots.storeWillChange()
        }
        #expect(try snapshots.save(Self.home, screen: "home", user: "u1", at: Self.savedAt, readSince: mark, currentUntil: Self.until))
        #expect(!Self.isCurrent(snapshots), "the picture is saved, not sealed")
        #expect(ScreenSnapshots(directory: snapshots.directory).load(ScreenSnapshotsTests.Home.self, screen: "home", user: "u1") != nil)
    }

    /// Two instances over one folder, however its name is spelled, share what they are told: a change told to
    /// one keeps the other from sealing what it read meanwhile.
    @Test func aChangeToldToAnotherInstanceOverTheFolderKeepsItFromSealing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        let other = ScreenSnapshots(directory: directory.url.appendingPathComponent("x/../snapshots"))
        let mark = snapshots.mark()
        other.around {}
        #expect(try snapshots.save(Self.home, screen: "home", user: "u1", at: Self.savedAt, readSince: mark, currentUntil: Self.until))
        #expect(!Self.isCurrent(snapshots))
    }

    /// A relaunched process does not know whether a seal was left: its first change deletes any.
    @Test func theFirstChangeOfTheNextProcessUnsealsWhatTheLastLeft() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        let relaunched = ScreenSnapshots(directory: snapshots.directory)
        relaunched.storeWillChange()
        #expect(!Self.isCurrent(snapshots))
        relaunched.storeDidChange()
    }

    /// The attack: a seal altered to last longer, or a seal kept from an older snapshot, vouches for nothing.
    @Test(arguments: ["altered", "older snapshot's"]) func aSealThatDoesNotMatchIsNotCurrent(_ attack: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        let seal = snapshots.directory.appendingPathComponent("current.seals")
        var bytes = try Data(contentsOf: seal)
        if attack == "altered" {
            bytes[11] ^= 0x40
        } else {
            let other = ScreenSnapshotsTests.Home(balance: 9, names: [])
            #expect(try snapshots.save(other, screen: "home", user: "u1", at: Self.savedAt, readSince: snapshots.mark()))
        }
        try bytes.write(to: seal)
        #expect(!Self.isCurrent(snapshots))
    }

    @Test func aClearingTakesTheSealWithTheSnapshot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        try snapshots.clearAll()
        #expect(!FileManager.default.fileExists(atPath: snapshots.directory.path))
        snapshots.applyTimeouts()
        #expect(!Self.isCurrent(snapshots))
    }

    @Test func newTimeoutsUnsealIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.sealed(in: directory)
        snapshots.applyTimeouts()
        #expect(!Self.isCurrent(snapshots))
    }

    /// Every change a disk store makes is told before anything is written, and its end after.
    @Test(arguments: ["set", "remove", "remove matching", "remove all", "trim", "restamp"])
    func everyChangeOfADiskStoreIsToldBeforeItWrites(_ change: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let observer = RecordingObserver()
        let store = DiskStore(configuration: .init(directory: directory.url), changes: observer)
        observer.store = store
        let metadata = CacheEntryMetadata(storedAt: Self.savedAt, expiresAt: nil, scope: CacheScope(accountId: "a1"))
        try store.set(Data("old".utf8), forKey: "k", metadata: metadata)
        observer.reset()
        switch change {
        case "set": try store.set(Data("new".utf8), forKey: "k", metadata: metadata)
        case "remove": try store.remove("k")
        case "remove matching": try store.removeAll(matching: .account("a1"))
        case "remove all": try store.removeAll()
        case "trim": try store.trim(toBytes: 0)
        default: try store.restamp { _ in Self.until }
        }
        #expect(observer.events == ["will: old", "did"], "\(change): \(observer.events)")
        _ = store.get("k")
        _ = store.peek("k")
        store.recordHit("k")
        #expect(observer.events == ["will: old", "did"], "reads and recency are no changes")
    }
}

/// Records each change it is told of, with what the store held for `k` when the change was announced.
private final class RecordingObserver: StoreChangeObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    weak var store: DiskStore?

    var events: [String] { lock.withLock { recorded } }
    func reset() { lock.withLock { recorded = [] } }

    func storeWillChange() {
        let held = store?.peek("k").map { String(decoding: $0.value, as: UTF8.self) } ?? "nothing"
        lock.withLock { recorded.append("will: \(held)") }
    }

    func storeDidChange() { lock.withLock { recorded.append("did") } }
}
