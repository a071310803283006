import CacheKitTesting
import Foundation
import Testing

@testable import CacheKit

/// A screen's own reader (``ScreenSnapshots/load(_:screen:user:at:decode:)``): it gets the value's JSON and nothing
/// else, never another user's, and a value it cannot read is no snapshot.
@Suite(.timeLimit(.minutes(10))) struct ScreenSnapshotReaderTests {
    typealias Home = ScreenSnapshotsTests.Home

    @Test func theReaderGetsTheValuesJSONAndReadsAsJSONDecoder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        var read: [Data] = []
        let last = snapshots.load(Home.self, screen: "home", user: "u1") { body in
            read.append(body)
            return try JSONDecoder().decode(Home.self, from: body)
        }
        // The value's own JSON, once: no user and no date around it (its keys in whatever order `JSONEncoder` chose).
        #expect(read.count == 1)
        let body = String(decoding: read.first ?? Data(), as: UTF8.self)
        #expect(body.hasPrefix("{") && body.contains(#""balance":1250"#) && !body.contains("u1"), "\(body)")
        #expect(last?.value == ScreenSnapshotsTests.home && last?.savedAt == ScreenSnapshotsTests.savedAt)
    }

    /// Another user's snapshot is refused before its value is read: no reader ever sees it.
    @Test func anotherUsersValueReachesNoReader() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        var reads = 0
        let last = snapshots.load(Home.self, screen: "home", user: "u2") { body in
            reads += 1
            return try JSONDecoder().decode(Home.self, from: body)
        }
        #expect(last == nil && reads == 0)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") != nil, "and the file is kept for its own user")
    }

    /// A value its reader refuses is no snapshot, and the file goes, as a damaged one does.
    @Test func aValueTheReaderRefusesIsNoSnapshotAndIsDeleted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        let last = snapshots.load(Home.self, screen: "home", user: "u1") { _ in throw CocoaError(.coderReadCorrupt) }
        #expect(last == nil)
        #expect(!FileManager.default.fileExists(atPath: snapshots.directory.appendingPathComponent("home.snapshot").path))
    }

    /// A file an earlier version wrote (its checksum, then the user, the date and the value as one JSON object) reads
    /// as damaged: no snapshot, and the file is deleted, so the next save starts clean.
    @Test func aFileOfTheEarlierFormatIsNoSnapshot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        let file = snapshots.directory.appendingPathComponent("home.snapshot")
        let body = Data(#"{"user":"u1","savedAt":800000000,"value":{"balance":1250,"names":["Checking","Savings"]}}"#.utf8)
        var earlier = withUnsafeBytes(of: CRC32.checksum(body).littleEndian) { Data($0) }
        earlier.append(body)
        try earlier.write(to: file)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// A file whose checksum is right but whose head is not (written by another program, or crafted): the user's
    /// id running past the end, a length no file holds, an empty value, another format. Each is no snapshot, and
    /// the file is deleted.
    @Test(arguments: ["one past the end", "the largest length", "an empty value", "another format"])
    func aHeadThatDoesNotHoldIsNoSnapshot(_ head: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        let file = snapshots.directory.appendingPathComponent("home.snapshot")
        let body = try JSONEncoder().encode(ScreenSnapshotsTests.home)
        var rest = StoredSnapshot.file(user: "u1", savedAt: ScreenSnapshotsTests.savedAt, body: body).data.dropFirst(4)
        let lengthAt = rest.startIndex + 9
        func setLength(_ length: UInt32) {
            withUnsafeBytes(of: length.littleEndian) { rest.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0) }
        }
        switch head {
        case "one past the end": setLength(UInt32(rest.count - 13 + 1))
        case "the largest length": setLength(.max)
        case "an empty value": rest = rest.prefix(13 + 2)
        default: rest[rest.startIndex] = StoredSnapshot.format + 1
        }
        var damaged = withUnsafeBytes(of: CRC32.checksum(rest).littleEndian) { Data($0) }
        damaged.append(rest)
        try damaged.write(to: file)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// A user's id is compared byte for byte: `é` written as one character and as `e` and an accent are two users,
    /// though Swift's strings call them equal.
    @Test func anotherSpellingOfTheUsersIdIsAnotherUser() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = ScreenSnapshots(directory: directory.url.appendingPathComponent("snapshots"))
        let composed = "ren\u{E9}"
        let decomposed = "rene\u{301}"
        #expect(composed == decomposed, "Swift's strings call them equal")
        try snapshots.save(
            ScreenSnapshotsTests.home, screen: "home", user: composed, at: ScreenSnapshotsTests.savedAt, readSince: snapshots.mark())
        #expect(snapshots.load(Home.self, screen: "home", user: decomposed) == nil)
        #expect(snapshots.load(Home.self, screen: "home", user: composed)?.value == ScreenSnapshotsTests.home)
    }

    /// A snapshot saved while a damaged one is being read is kept: only the bytes found damaged are deleted.
    @Test func aSaveDuringTheReadOfADamagedFileIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let snapshots = try ScreenSnapshotsTests.saved(in: directory)
        let replacement = Home(balance: 7, names: ["Saved meanwhile"])
        let last = snapshots.load(Home.self, screen: "home", user: "u1") { _ in
            try snapshots.save(replacement, screen: "home", user: "u1", at: ScreenSnapshotsTests.savedAt, readSince: snapshots.mark())
            throw CocoaError(.coderReadCorrupt)
        }
        #expect(last == nil)
        #expect(snapshots.load(Home.self, screen: "home", user: "u1")?.value == replacement)
    }
}
