import CacheKit
import Foundation
import Logging

// One queue per user: ending a session, erasing an account, opening a user's file.
extension MutationQueue {
    /// At logout: keeps the user's queue for their next sign-in, or discards it (its optimistic
    /// updates are gone with the cleared caches). Either way nothing of it is sent while another
    /// user is signed in.
    public func endSession(of userId: String, keepingQueue: Bool) {
        state.pending = []
        pendingOwner = nil
        for observer in observers.values { observer.yield(state) }
        guard !keepingQueue else { return }
        erase(userId: userId)
    }

    /// Account deletion: the user's queue file is deleted.
    public func erase(userId: String) {
        if pendingOwner == userId {
            state.pending = []
            pendingOwner = nil
        }
        let store = stores.removeValue(forKey: userId)
        do {
            if let store {
                try store.destroy()
            } else {
                for suffix in ["", "-wal", "-shm"] {
                    let file = URL(fileURLWithPath: fileURL(for: userId).path + suffix)
                    if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
                }
            }
        } catch {
            configuration.logger.error("A mutation queue could not be deleted", metadata: ["error": "\(error)"])
        }
    }

    /// Account deletion when the user is not known (signed out after a logout or an expiry): every user's
    /// queue file on the device is deleted, so the app returns to its first-launch state.
    public func eraseAll() {
        state.pending = []
        pendingOwner = nil
        for user in Array(stores.keys) { erase(userId: user) }
        let files = (try? FileManager.default.contentsOfDirectory(at: configuration.directory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.lastPathComponent.hasPrefix("queue-") {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                configuration.logger.error("A mutation queue could not be deleted", metadata: ["error": "\(error)"])
            }
        }
        for observer in observers.values { observer.yield(state) }
    }

    /// The file that holds a user's queue: named by a hash of the user id, never the id itself.
    public nonisolated func fileURL(for userId: String) -> URL {
        configuration.directory.appendingPathComponent("queue-\(StableHash.hex(userId)).sqlite")
    }

    func store(for userId: String) throws -> MutationQueueStore {
        if let store = stores[userId] { return store }
        let store = try MutationQueueStore(url: fileURL(for: userId))
        stores[userId] = store
        return store
    }
}
