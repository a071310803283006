import APICore
import APICoreOffline
import AccountsKit
import CacheKit
import CacheKitTesting
import ChatHistoryKit
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

/// Data at rest is closed to another user of the same device (security review, finding 6): after a
/// session that fills every store, no folder of the app's can be opened by anyone but its owner, and no
/// database or file holding data can be read by anyone else, whatever the process's umask.
@Suite(.timeLimit(.minutes(3))) struct DataAtRestTests {
    @Test func anotherUserOfTheDeviceCanOpenNoFolderAndReadNoFileOfTheApp() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        try await withBackend(20) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "data-at-rest")
            logger.logLevel = .critical
            let caches = directory.url.appendingPathComponent("caches")
            let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: logger)
            try await app.signIn()
            _ = try await app.loadCatalog()
            _ = try await app.accounts.dashboard()
            _ = try await app.chat.syncFromServer()
            try app.preferences.set(true, forKey: "onboarding.done")
            await app.queue.stop()
            let roots = [caches, app.tokenFile.deletingLastPathComponent().deletingLastPathComponent()]
            var folders = 0
            var files = 0
            for root in roots {
                for url in [root] + Self.items(under: root) {
                    let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true
                    let mode = try #require(ProtectedFiles.permissions(of: url), "\(url.path)")
                    if isFolder {
                        folders += 1
                        #expect(mode == 0o700, "\(url.path): \(String(mode, radix: 8))")
                    } else {
                        files += 1
                        #expect(mode & 0o077 == 0, "\(url.path): \(String(mode, radix: 8))")
                    }
                }
            }
            // The check saw every store: caches, GraphQL, chat history, queue, token and preferences.
            #expect(folders >= 4 && files >= 5, "\(folders) folders, \(files) files")
        }
    }

    static func items(under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        return enumerator.compactMap { $0 as? URL }
    }
}
