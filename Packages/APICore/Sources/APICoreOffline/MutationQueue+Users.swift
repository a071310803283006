import APICore
import CacheKit
import Foundation
import Logging

// One queue per user: ending a session, erasing an account, opening a user's file.
extension MutationQueue {
    /// At logout: keeps the user's queue for their next sign-in, or discards it (its optimistic
    /// updates are gone with the cleared caches). Either way nothing of it is sent while another
    /// user is signed in.
    public func endSession(of userId: String, keepingQueue: Bool) {
        sessionEnded()
        guard !keepingQueue else { return }
        erase(userId: userId)
    }

    /// Account deletion: the user's queue file is deleted (and the key naming the files, once no queue is left).
    public func erase(userId: String) {
        if pendingOwner == userId { forgetOwner() }
        let store = stores.removeValue(forKey: userId)
        do {
            try store?.destroy()
            for url in [fileURL(for: userId), legacyFileURL(for: userId)] {
                for suffix in ["", "-wal", "-shm"] {
                    let file = URL(fileURLWithPath: url.path + suffix)
                    if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
                }
            }
            if queueFiles().isEmpty { try InstallSecret.delete(in: configuration.directory) }
        } catch {
            configuration.logger.error("A mutation queue could not be deleted", metadata: ["error": "\(error)"])
        }
    }

    /// Account deletion when the user is not known (signed out after a logout or an expiry): every user's
    /// queue file on the device is deleted, so the app returns to its first-launch state.
    public func eraseAll() {
        forgetOwner()
        for user in Array(stores.keys) { erase(userId: user) }
        do {
            for file in queueFiles() { try FileManager.default.removeItem(at: file) }
            try InstallSecret.delete(in: configuration.directory)
        } catch {
            configuration.logger.error("A mutation queue could not be deleted", metadata: ["error": "\(error)"])
        }
        for observer in observers.values { observer.yield(state) }
    }

    /// The file that holds a user's queue: named by a keyed hash of the user id (the key is this
    /// installation's, beside the files), never the id itself nor a hash anyone can compute from a guess.
    public nonisolated func fileURL(for userId: String) -> URL {
        queueFile(named: fileSecret.fileNameHash(userId))
    }

    /// The queue file whose name carries `hash`.
    private nonisolated func queueFile(named hash: String) -> URL {
        configuration.directory.appendingPathComponent("queue-\(hash).sqlite", isDirectory: false)
    }

    /// The name earlier versions gave the file (an unkeyed hash): renamed to ``fileURL(for:)`` when found.
    nonisolated func legacyFileURL(for userId: String) -> URL {
        configuration.directory.appendingPathComponent("queue-\(StableHash.hex(userId)).sqlite", isDirectory: false)
    }

    private func queueFiles() -> [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(at: configuration.directory, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.lastPathComponent.hasPrefix("queue-") }
    }

    /// `userId`'s queue when they have one (open, or a file from an earlier run), creating nothing: what settles or
    /// reads a user's refusals and remaps after the fact (a kit's follower finishing its pass) never brings back a
    /// queue their logout or deletion erased.
    func existingStore(for userId: String) throws -> MutationQueueStore? {
        if let store = stores[userId] { return store }
        // Named without writing the key's file again (``fileURL(for:)`` would, after an erase deleted it).
        let files = [queueFile(named: fileSecret.hash(userId)), legacyFileURL(for: userId)]
        guard files.contains(where: { FileManager.default.fileExists(atPath: $0.path) }) else { return nil }
        return try store(for: userId)
    }

    func store(for userId: String) throws -> MutationQueueStore {
        if let store = stores[userId] { return store }
        let legacy = legacyFileURL(for: userId)
        if FileManager.default.fileExists(atPath: legacy.path), !FileManager.default.fileExists(atPath: fileURL(for: userId).path) {
            // The log first and the database last: killed half way, the next launch finds the old database
            // still there and moves what is left, so no committed change is separated from its file.
            for suffix in ["-wal", "-shm", ""] where FileManager.default.fileExists(atPath: legacy.path + suffix) {
                try FileManager.default.moveItem(atPath: legacy.path + suffix, toPath: fileURL(for: userId).path + suffix)
            }
        }
        let store = try MutationQueueStore(url: fileURL(for: userId))
        stores[userId] = store
        return store
    }
}
