import Foundation

extension HTTPCache {
    /// What keeps a fetch from storing: a clear keeps out every fetch that started before it; an invalidation (an
    /// unsafe method, RFC 9111 §4.4) only the fetches of the keys it names.
    struct Barriers {
        /// The latest clear or invalidation.
        var sequence = 0
        /// The sequence number of the latest clear.
        var cleared = 0
        /// The sequence number of each key's latest invalidation.
        var invalidated: [String: Int] = [:]

        /// How many invalidated keys are remembered; past that, one barrier for every key replaces
        /// them (it keeps out more than needed, never less).
        static let keyLimit = 4_096

        /// Whether a fetch of `key` that started at `sequence` may store its response.
        func allowsStore(of key: String, startedIn sequence: Int) -> Bool {
            cleared <= sequence && (invalidated[key] ?? 0) <= sequence
        }

        mutating func clear() {
            sequence += 1
            cleared = sequence
            invalidated.removeAll()
        }

        mutating func invalidate(_ key: String) {
            sequence += 1
            if invalidated.count >= Self.keyLimit {
                cleared = sequence
                invalidated.removeAll()
            } else {
                invalidated[key] = sequence
            }
        }
    }
}
