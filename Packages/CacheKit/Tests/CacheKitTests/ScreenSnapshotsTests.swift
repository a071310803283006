import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// ``ScreenSnapshots``: what a screen showed, for its user only, gone with any clearing, and never a
/// damaged file read as a screen.
@Suite(.timeLimit(.minutes(10))) struct ScreenSnapshotsTests {
    struct Home: Codable, Sendable, Hashable {
        var balance: Int
        var names: [String]
    }

    static let home = Home(balance: 1_250, names: ["Checking", "Savings"])
    static let savedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// A folder with one snapshot of `home` saved by `u1`.
    static func saved(in directory: TemporaryDirectory) throws -> ScreenSnapshots {
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        #expect(try snapshots.save(home, screen: "home", user: "u1", at: savedAt, readSince: snapshots.mark()))
        return snapshots
    }

    @Test func aSnapshotReadsBackForItsUserWithWhenItWasSaved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        let reopened = ScreenSnapshots(directory: snapshots.directory)
        let last = try #require(reopened.load(Home.self, screen: "home", user: "u1"))
        #expect(last.value == Self.home && last.savedAt == Self.savedAt)
        #expect(reopened.load(Home.self, screen: "settings", user: "u1") == nil, "another screen has none")
    }

    /// The attack: another user on the device (or a file copied in) never gets the first user's screen.
    @Test func anotherUsersSnapshotIsNeverReturned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        #expect(snapshots.load(Home.self, screen: "home", user: "u2") == nil)
        #expect(snapshots.load(Home.self, screen: "home", user: "") == nil)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") != nil, "its own user still reads it")
    }

    @Test func filesAreTheOwnersOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        #expect(ProtectedFiles.permissions(of: snapshots.directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: snapshots.directory.path)
        #expect(files == ["home.snapshot"], "one file, no temporary one left: \(files)")
        #expect(ProtectedFiles.permissions(of: snapshots.directory.appendingPathComponent("home.snapshot")) == 0o600)
    }

    /// A file cut short by a dying disk, or with one byte changed (still valid JSON of the same shape,
    /// `Savings` read as `Savingz`), is no screen: nothing is returned and the file is deleted, so the next
    /// save starts clean.
    @Test(arguments: ["cut", "changed", "empty"]) func aDamagedFileIsNoSnapshotAndIsDeleted(_ damage: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        let file = snapshots.directory.appendingPathComponent("home.snapshot")
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "cut": bytes = bytes.prefix(bytes.count - 7)
        case "changed":
            let at = try #require(bytes.firstRange(of: Data("Savings".utf8)))
            bytes[at.upperBound - 1] = UInt8(ascii: "z")
        default: bytes = Data()
        }
        try bytes.write(to: file)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
    }

    /// The attack: a screen name that climbs out of the folder writes nothing and reads nothing there.
    @Test(arguments: ["../home", "..", ".hidden", "a/b", ""]) func aScreenNameThatLeavesTheFolderIsRefused(_ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        #expect(throws: CacheError.invalidFeatureName(name)) {
            try snapshots.save(Self.home, screen: name, user: "u1", at: Self.savedAt, readSince: snapshots.mark())
        }
        let outside = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(outside == ["snapshots"], "nothing written beside the folder: \(outside)")
        try FileManager.default.copyItem(
            at: snapshots.directory.appendingPathComponent("home.snapshot"), to: directory.url.appendingPathComponent("home.snapshot"))
        #expect(snapshots.load(Home.self, screen: name, user: "u1") == nil)
    }

    @Test func aSnapshotOfAnotherShapeIsNoSnapshot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        #expect(snapshots.load([String].self, screen: "home", user: "u1") == nil)
    }

    /// Every clearing drops every snapshot: a screen's may hold a bit of anything cleared.
    @Test(arguments: ["all", "account", "key", "timestamps"]) func anyClearingDropsTheSnapshots(_ clearing: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try Self.saved(in: directory)
        let manager = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
        manager.register(snapshots)
        let report =
            switch clearing {
            case "all": await manager.clearAllCaches()
            case "account": await manager.clearCache(forAccountId: "acc-1")
            case "key": await manager.clearCache(forQuery: "catalog")
            default: await manager.clearTimestamps()
            }
        #expect(report.failed.isEmpty)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
        #expect(!FileManager.default.fileExists(atPath: snapshots.directory.path))
    }

    /// The race with logout: a screen read before a clearing and saved after it leaves nothing behind.
    @Test func aValueReadBeforeAClearingIsNotSaved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        let mark = snapshots.mark()
        try snapshots.clearAll()
        #expect(try snapshots.save(Self.home, screen: "home", user: "u1", at: Self.savedAt, readSince: mark) == false)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
        #expect(try snapshots.save(Self.home, screen: "home", user: "u1", at: Self.savedAt, readSince: snapshots.mark()))
        #expect(snapshots.load(Home.self, screen: "home", user: "u1")?.value == Self.home, "a mark taken after it saves")
    }
}
