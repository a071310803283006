import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// The image cache's size on disk, its write-ahead log included, against its limit. A suite of its own: it
/// writes 20 MB, which ThreadSanitizer runs in a pass of its own (`Tools/tsan.sh`).
@Suite(.timeLimit(.minutes(10))) struct ImageCacheDiskSizeTests {
    /// The files on disk (the database, its write-ahead log and its index) stay under the limit: the log is
    /// part of the cache's size, not beside it.
    @Test func itsFilesOnDiskLogIncludedStayUnderItsLimit() async throws {
        let limit = 16 * 1_024 * 1_024
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = ImageCache(configuration: .init(directory: folder.url, byteLimit: limit))
        var largest = 0
        for index in 0..<1_200 {
            _ = try await cache.image(forKey: "k\(index)", user: "alice") { ImageCacheTests.image("\(index)", bytes: 20_000) }
            if index % 20 == 19 {
                let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
                let onDisk = try names.reduce(0) { total, name in
                    let attributes = try FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(name).path)
                    return total + ((attributes[.size] as? Int) ?? 0)
                }
                largest = max(largest, onDisk)
            }
        }
        print("image cache on disk: largest \(largest) bytes for a limit of \(limit)")
        #expect(largest <= limit, "\(largest) bytes on disk for a limit of \(limit)")
        #expect(cache.image(forKey: "k1199", user: "alice") != nil, "positive control: the cache still keeps images")
    }
}
