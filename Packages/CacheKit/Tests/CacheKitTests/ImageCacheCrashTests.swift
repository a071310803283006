import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import Testing

/// A child process (this test binary, filtered to ``childCachesImages()``) stores images past the cache's
/// limit (so every write also evicts), and now and then clears a user or everything, until it is killed
/// with SIGKILL at a random moment. Whatever the moment, the relaunched cache never reads back an image
/// whose bytes differ from what was stored under its key, and every byte in its file is in its
/// accounting: no file beside its database, and the bytes it counts are the bytes its rows hold.
@Suite(.timeLimit(.minutes(10))) struct ImageCacheCrashTests {
    static let childVariable = "CACHEKIT_IMAGE_CACHE_CRASH_CHILD"
    static let byteLimit = 60 * 1_024

    /// The bytes stored under `key` at `generation`: a PNG frame around the key and generation, then a
    /// pattern that follows from both, about 2 KB.
    static func image(_ key: String, generation: Int) -> Data {
        var data = Data("\(key)|\(generation)|".utf8)
        let seed = key.utf8.reduce(generation) { $0 &* 31 &+ Int($1) }
        while data.count < 2_000 { data.append(UInt8(truncatingIfNeeded: seed &+ data.count &* 7)) }
        return TestImage.png(data)
    }

    /// The key and generation an image says it was stored with.
    static func stamp(of data: Data) -> (key: String, generation: Int)? {
        let fields = String(decoding: TestImage.payload(of: data).prefix(64), as: UTF8.self).split(
            separator: "|", omittingEmptySubsequences: false)
        guard fields.count >= 3, let generation = Int(fields[1]) else { return nil }
        return (String(fields[0]), generation)
    }

    @Test func aCacheKilledAtAnyMomentNeverReadsAWrongImageAndAccountsForEveryByte() async throws {
        var imagesRead = 0
        for trial in 0..<6 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let cacheFolder = directory.url.appendingPathComponent("images")
            let started = directory.url.appendingPathComponent("started")
            let child = try CrashChild.start(test: "childCachesImages", environment: [Self.childVariable: cacheFolder.path])
            try await child.waitUntilStarted(signalledBy: started)
            try await child.kill(after: .milliseconds(Int.random(in: 5...80)))

            let cache = ImageCache(configuration: .init(directory: cacheFolder, byteLimit: Self.byteLimit))
            for user in ["alice", "bob"] {
                for index in 0..<60 {
                    let key = "https://cdn/\(index).png"
                    guard let data = cache.image(forKey: key, user: user) else { continue }
                    imagesRead += 1
                    let stamp = try #require(Self.stamp(of: data), "trial \(trial): an image with no stamp")
                    #expect(stamp.key == "\(user):\(key)", "trial \(trial): \(user) read \(stamp.key)")
                    #expect(data == Self.image(stamp.key, generation: stamp.generation), "trial \(trial): wrong bytes for \(key)")
                }
            }
            let usage = try cache.store.usage()
            #expect(usage.bytes <= Self.byteLimit, "trial \(trial): \(usage.bytes) bytes kept over the limit")
            let file = cacheFolder.appendingPathComponent("images.sqlite")
            var rowBytes = 0
            if FileManager.default.fileExists(atPath: file.path) {
                // Killed after a clear: no file, nothing held.
                let database = try DatabaseQueue(path: file.path)
                rowBytes = try await database.read { db in
                    try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(CAST(key AS BLOB)) + LENGTH(value)), 0) FROM entry") ?? -1
                }
                try database.close()
            }
            #expect(rowBytes == usage.bytes, "trial \(trial): \(usage.bytes) bytes accounted, \(rowBytes) held")
            DiscardedFiles.waitForDeletions()
            let files = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path)
            let unknown = files.filter { !$0.hasPrefix("images.sqlite") && $0 != ".install-secret" && $0 != DiscardedFiles.folderName }
            #expect(unknown.isEmpty, "trial \(trial): files outside the accounting: \(unknown)")
            let discarded =
                (try? FileManager.default.contentsOfDirectory(atPath: cacheFolder.appendingPathComponent(DiscardedFiles.folderName).path))
                ?? []
            #expect(discarded.isEmpty, "trial \(trial): cleared files were not swept: \(discarded)")
        }
        #expect(imagesRead > 0, "no trial left an image to check")
    }

    /// Only in the child process (skipped otherwise): stores images for two users in a loop past the
    /// limit, clearing bob every 40th and everything every 97th, until killed (at most 60 s).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the crash test's child"))
    func childCachesImages() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let folder = URL(fileURLWithPath: path)
        let cache = ImageCache(configuration: .init(directory: folder, byteLimit: Self.byteLimit))
        let deadline = Date().addingTimeInterval(60)
        var generation = 0
        while Date() < deadline {
            let user = generation % 3 == 0 ? "bob" : "alice"
            let key = "https://cdn/\(generation % 60).png"
            let stamp = generation
            _ = try await cache.image(forKey: key, user: user) { Self.image("\(user):\(key)", generation: stamp) }
            if generation % 40 == 39 { try cache.clear(userId: "bob") }
            if generation % 97 == 96 { try cache.clearAll() }
            if generation == 20 { try Data().write(to: folder.deletingLastPathComponent().appendingPathComponent("started")) }
            generation += 1
        }
    }
}
