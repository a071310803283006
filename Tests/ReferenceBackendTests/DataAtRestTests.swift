import APICore
import APICoreGraphQL
import APICoreOffline
import AccountsKit
import CacheKit
import CacheKitTesting
import ChatHistoryKit
import ContactsKit
import Foundation
import Logging
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

/// Data at rest is closed to another user of the same device (security review, finding 6): after a
/// session that fills every store (the HTTP cache, the GraphQL records in SQLite, chat history, the
/// address book and its thumbnails, the first screen's snapshot, the queue, the token, the preferences), no
/// folder of the app's can be opened by anyone but its owner, and no file holding data can be read by
/// anyone else. The process's umask is left alone (other tests run beside this one): under the usual 022,
/// a file created without protection is 0644 and fails here.
@Suite(.timeLimit(.minutes(10))) struct DataAtRestTests {
    @Test func anotherUserOfTheDeviceCanOpenNoFolderAndReadNoFileOfTheApp() async throws {
        try await withBackend(20) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var logger = Logger(label: "data-at-rest")
            logger.logLevel = .critical
            let caches = directory.url.appendingPathComponent("caches")
            // A store's folder is there already, open to others (left by an earlier version, restored from a
            // backup): the store narrows it, whatever the umask would have given a folder it created. (The caches
            // folder itself is the app's: made here as the app would make it.)
            try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createDirectory(
                at: caches.appendingPathComponent("graphql"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let records = try SQLiteRecordStore(url: caches.appendingPathComponent("graphql").appendingPathComponent("records.sqlite"))
            let app = try DemoComposition(baseURL: fixture.backend.baseURL, cachesDirectory: caches, logger: logger, graphQLStore: records)
            let user = try await app.signIn()
            _ = try await app.composition.firstScreen()
            _ = try await app.chat.syncFromServer()
            let report = await app.contacts.syncNow()
            #expect(report.outcome == .completed, "\(report)")
            let first = try #require(try await app.contacts.contacts(limit: 5).value.contacts.first { $0.photoPath != nil })
            #expect(try await app.contacts.thumbnail(of: first) != nil)
            try app.composition.preferences(for: user).set(true, forKey: "onboarding.done")
            try app.composition.setTelemetryOptedOut(true)
            await app.queue.stop()
            let roots = [caches, app.tokenFile.deletingLastPathComponent().deletingLastPathComponent()]
            var folders = 0
            var files: [String] = []
            for root in roots {
                for url in [root] + Self.items(under: root) {
                    let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true
                    let mode = try #require(ProtectedFiles.permissions(of: url), "\(url.path)")
                    if isFolder {
                        folders += 1
                        #expect(mode == 0o700, "\(url.path): \(String(mode, radix: 8))")
                    } else {
                        files.append(url.lastPathComponent)
                        #expect(mode & 0o077 == 0, "\(url.path): \(String(mode, radix: 8))")
                    }
                }
            }
            // The check saw every store, by name where the name is fixed.
            #expect(files.contains("records.sqlite"), "the GraphQL store: \(files)")
            #expect(files.contains { $0.hasPrefix("first-screen") }, "the snapshot: \(files)")
            #expect(folders >= 6 && files.count >= 9, "\(folders) folders, \(files)")
        }
    }

    /// Security review two, finding 8: the reference backend's database (password hashes, chats,
    /// contacts) is 0600 with its WAL and journal, and a folder it creates is 0700.
    @Test func theBackendsDatabaseIsItsOwnersAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("new-folder").appendingPathComponent("backend.sqlite")
        let database = try BackendDatabase(url: url, funnelCount: 5, passwordWork: .light)
        _ = try database.authenticate(email: "alice@example.com", password: "Password1")
        #expect(ProtectedFiles.permissions(of: url.deletingLastPathComponent()) == 0o700)
        // A database left readable by an earlier version is narrowed when it is opened again.
        let earlier = directory.url.appendingPathComponent("earlier.sqlite")
        #expect(FileManager.default.createFile(atPath: earlier.path, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try BackendDatabase(url: earlier, funnelCount: 5, passwordWork: .light)
        #expect(ProtectedFiles.permissions(of: earlier) == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(names.contains("backend.sqlite"))
        for name in names {
            let mode = try #require(ProtectedFiles.permissions(of: url.deletingLastPathComponent().appendingPathComponent(name)))
            #expect(mode & 0o077 == 0, "\(name): \(String(mode, radix: 8))")
        }
    }

    static func items(under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        return enumerator.compactMap { $0 as? URL }
    }
}
