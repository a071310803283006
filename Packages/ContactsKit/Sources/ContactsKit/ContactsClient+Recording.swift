import CacheKit

// Which kept changes are on their way to the queue, and which will never reach it. Process-wide: every client over
// any folder (a composition rebuilt over the same files) sees the same.
extension ContactsClient {
    /// The changes being recorded on the device and queued now, by key, with how many calls are doing so (an import
    /// asked twice at once records one key twice). A pass never undoes one of them: kept and not queued yet, it is
    /// on its way to the queue. A key leaves once its change is marked queued, or once its recording failed; one
    /// queued whose mark could not be written stays for the process's life (unmarked, it may be sent already: no pass
    /// may take it for one that never reached the queue; the next launch's pass finds it in the queue or sent).
    static let recording = Locked<[String: Int]>([:])

    /// Kept changes that will never reach the queue (the queue refused one, or a killed process left it), to be undone
    /// by the next pass that can fetch the server's values.
    static let notQueued = Locked<Set<String>>([])

    /// A call starts recording and queueing the change `key`.
    static func beginRecording(_ key: String) {
        recording.withLock { $0[key, default: 0] += 1 }
    }

    /// A call stopped recording the change `key`: it is marked queued, or it failed.
    static func endRecording(_ key: String) {
        recording.withLock { counts in
            guard let count = counts[key] else { return }
            counts[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Whether a call is recording or queueing the change `key` now.
    static func isRecording(_ key: String) -> Bool {
        recording.withLock { $0[key] != nil }
    }
}
