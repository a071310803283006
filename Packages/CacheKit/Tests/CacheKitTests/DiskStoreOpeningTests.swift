import CacheKitTesting
import Foundation
import Testing

@testable import CacheKit

/// Opening a store's file beside a clearing. `DiskStore.prepare()`, which an app's launch calls beside its other work,
/// opens a file that exists, so the first read finds it open, and creates nothing. A read or an opening beside a
/// clearing never opens the file the clearing is moving away: its connection would outlive the clearing and read
/// what was cleared.
@Suite("DiskStore: opening beside a clearing", .timeLimit(.minutes(10)))
struct DiskStoreOpeningTests {
    func store(_ directory: TemporaryDirectory) -> DiskStore {
        DiskStore(configuration: .init(directory: directory.url.appendingPathComponent("cache", isDirectory: true)))
    }

    func isOpen(_ store: DiskStore) -> Bool { store.state.withLock { $0.connection != nil } }

    @Test("an existing file is opened, and the next read finds it open and reads it")
    func opensAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try store(directory).set(Data("kept".utf8), forKey: "k", metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil))
        let relaunched = store(directory)
        #expect(!isOpen(relaunched))
        relaunched.prepare()
        #expect(isOpen(relaunched))
        #expect(relaunched.get("k")?.value == Data("kept".utf8))
    }

    @Test("with no file, nothing is opened and nothing is created, not even the folder")
    func createsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = store(directory)
        store.prepare()
        #expect(!isOpen(store))
        #expect(!FileManager.default.fileExists(atPath: store.configuration.directory.path))
    }

    @Test("a clearing before or beside the opening leaves no file, in random orders")
    func aClearingBesideTheOpeningLeavesNoFile() async throws {
        var random = SeededRandom(seed: 63)
        for round in 0..<40 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try store(directory).set(
                Data("secret-\(round)".utf8), forKey: "k", metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil))
            let relaunched = store(directory)
            let clearsFirst = Bool.random(using: &random)
            async let opening: Void = Task.detached { relaunched.prepare() }.value
            if clearsFirst { try relaunched.removeAll() }
            await opening
            if !clearsFirst { try relaunched.removeAll() }
            relaunched.prepare()
            #expect(directory.files().isEmpty, "round \(round): \(directory.files())")
            #expect(relaunched.get("k") == nil)
        }
    }

    @Test("reads beside a clearing never keep the cleared file open: what was cleared is not read after it")
    func readsBesideAClearingReadNothingCleared() async throws {
        for round in 0..<30 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = store(directory)
            try store.set(Data("secret-\(round)".utf8), forKey: "k", metadata: CacheEntryMetadata(storedAt: Date(), expiresAt: nil))
            let reads = Locked(0)
            let cleared = Locked(false)
            let reader = Task.detached {
                while !cleared.withLock({ $0 }) {
                    _ = store.get("k")
                    reads.withLock { $0 += 1 }
                }
            }
            do {
                // The reader stops however this ends: a wait past its deadline or a failed clearing.
                defer { cleared.withLock { $0 = true } }
                try await waitUntil("the reader's first read") { reads.withLock { $0 } > 0 }
                try store.removeAll()
            }
            await reader.value
            #expect(store.get("k") == nil, "round \(round): the cleared entry was read after the clearing")
            #expect(directory.files().isEmpty, "round \(round): \(directory.files())")
        }
    }
}
