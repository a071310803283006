import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// The attack: the last user's image lands in the image cache after the logout's clearing. A load that found no
/// clearing since it started is held between that check and its write while the clearing runs; the image must not be
/// in the cache, nor in any of its files, after the clearing.
@Suite(.timeLimit(.minutes(10))) struct ImageCacheClearingRaceTests {
    @Test(arguments: ["everything", "the user", "the key", "the address for everyone"])
    func aLoadCheckedBeforeAClearingDoesNotWriteAfterIt(_ cleared: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pause = StepPause()
        let cache = ImageCache(configuration: .init(directory: directory.url, byteLimit: 1_000_000), clock: PausingClock(pause: pause))
        let photo = TestImage.png(Data("ALICE-PHOTO".utf8))
        // Armed inside the load: the next reading of the time is the write's date, after the check for clearings.
        let loading = Task {
            try await cache.image(forKey: "avatar", user: "alice") {
                pause.arm()
                return photo
            }
        }
        try await waitUntil("the load was held before its write") { pause.isPaused }
        switch cleared {
        case "everything": try cache.clearAll()
        case "the user": try cache.clear(userId: "alice")
        case "the key": try cache.clear(forKey: "avatar", user: "alice")
        default: try cache.clear(forKey: "avatar")
        }
        pause.resume()
        #expect(try await loading.value == photo, "the caller still gets what it loaded")
        #expect(cache.image(forKey: "avatar", user: "alice") == nil, "the image was written after clearing \(cleared)")
        // A logout's and an account's clearing purge the bytes from the files too; a single key's leaves them to SQLite.
        if cleared == "everything" || cleared == "the user" { #expect(!directory.anyFileContains("ALICE-PHOTO")) }
    }
}
