import APICore
import CacheKit
import CacheKitTesting
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// The app's ``ImageCache`` against the reference backend's thumbnails over HTTP: twenty rows make one
/// request, a failed load is not stored, and logout and account deletion leave no image behind.
@Suite(.timeLimit(.minutes(10))) struct ImageCacheAgainstBackendTests {
    static let quiet: Logger = {
        var logger = Logger(label: "images-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test func twentyRowsShowingOneThumbnailMakeOneRequestAndItIsAPNG() async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: folder.url.appendingPathComponent("caches"),
                logger: Self.quiet)
            _ = try await app.signIn()
            let images = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<20 { group.addTask { try await app.composition.thumbnail("/avatars/ada.png") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(app.transport.count("/avatars/ada.png") == 1, "one request for twenty rows")
            #expect(Set(images).count == 1 && ImageFormat(sniffing: images[0]) == .png && images[0].count > 9_000)
            _ = try await app.composition.thumbnail("/avatars/ada.png")
            #expect(app.transport.count("/avatars/ada.png") == 1, "the next screen reads it from the cache")

            await #expect(throws: ImageCacheError.self) { try await app.composition.thumbnail("/avatars/missing") }
            await #expect(throws: ImageCacheError.self) { try await app.composition.thumbnail("/avatars/missing") }
            #expect(app.transport.count("/avatars/missing") == 2, "a 404 is not stored: the next ask asks again")

            _ = await app.logOut()
            #expect(try app.images.store.usage().count == 0, "logout clears every image")
        }
    }

    @Test func accountDeletionLeavesNoImageFile() async throws {
        try await withBackend(5) { fixture in
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let caches = folder.url.appendingPathComponent("caches")
            let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: Self.quiet)
            _ = try await app.signIn()
            for name in ["ada", "grace", "alan"] { _ = try await app.composition.thumbnail("/avatars/\(name).png") }
            #expect(try app.images.store.usage().count == 3)
            let report = await app.session.deleteAccountData()
            #expect(report.failed.isEmpty)
            DiscardedFiles.waitForDeletions()
            let left = (try? FileManager.default.contentsOfDirectory(atPath: caches.appendingPathComponent("images").path)) ?? []
            #expect(left.filter { $0 != DiscardedFiles.folderName }.isEmpty, "no image file left: \(left)")
        }
    }
}
