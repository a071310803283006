import Foundation
import Logging

/// What a screen showed the last time, kept per user in one small file per screen, so that a relaunch
/// can draw its first frame from one file read and one decode, before any client, cache or database
/// is built; the screen's real read from the caches follows once the app is composed, and replaces it.
///
/// A snapshot is a picture of the past, not a cache to serve from: it has no freshness, only an age
/// (``ScreenSnapshot/savedAt``), and a screen shows it labelled as such. It belongs to the user who
/// saved it: ``load(_:screen:user:at:decode:)`` returns nothing for anyone else. Registered with the
/// ``UnifiedCacheManager``, it is dropped whole by any clearing at all (logout, an account's scope, one
/// key, expired timestamps), since it may hold a bit of anything cleared.
///
/// ```swift
/// let snapshots = ScreenSnapshots(directory: caches.appendingPathComponent("snapshots"))
/// if let storedUserId, let last = snapshots.load(Home.self, screen: "home", user: storedUserId) {
///     draw(last.value, age: last.savedAt)                 // at once, before anything is composed
/// }
/// // …compose the app, then read the home screen from the caches:
/// let mark = snapshots.mark()
/// let home = try await readHome()
/// draw(home)
/// try snapshots.save(home, screen: "home", user: userId, at: clock.now(), readSince: mark)
/// ```
///
/// The mark closes a race with logout: a save whose value was read before a clearing writes nothing, so
/// a logout that lands while a screen is being read leaves no snapshot of the user behind.
///
/// **Current snapshots.** Told of every change to the stores its screens are read from (the app names it as
/// its ``CacheEnvironment/storeChanges``), a snapshot can also say that it is current
/// (``ScreenSnapshot/isCurrent``): its parts were served fresh by the caches in a read during which no store
/// changed, no store has changed since, and their freshness has not ended. A relaunch that finds it current
/// needs no read through the caches. Every change deletes the seal before it writes anything (or empties it,
/// if the file system refuses the deletion), so a process killed halfway leaves the snapshot unsealed. One
/// process at a time uses a folder; instances over the same folder in that process share what they are told.
/// It vouches for what the caches served, which is what they hold unless they kept it in memory only (a
/// response not written to disk): the app seals only screens read from stores that outlive the process.
public final class ScreenSnapshots: CacheClearingParticipant, StoreChangeObserver {
    /// The folder of the snapshot files (created on first save).
    public let directory: URL
    private let logger: Logger
    /// Clearings and store changes counted; held while a file is written or deleted. Shared by every instance
    /// over the same folder in this process (named the same way once standardized: a symbolic link is another
    /// name), so that a change told to one keeps another from sealing.
    private let state: Locked<State>
    private static let states = Locked<[String: Locked<State>]>([:])

    private struct State {
        var clearings = 0
        var changesStarted = 0
        var changesEnded = 0
    }

    /// Snapshots in `directory`, a folder of their own under the caches folder.
    public init(directory: URL, logger: Logger = Logger(label: "CacheKit.ScreenSnapshots")) {
        self.directory = directory
        self.logger = logger
        let key = directory.standardizedFileURL.path
        state = Self.states.withLock { states in
            if let shared = states[key] { return shared }
            let created = Locked(State())
            states[key] = created
            return created
        }
    }

    /// Where clearings stand now: take it before reading what a snapshot will hold, and pass it to
    /// ``save(_:screen:user:at:readSince:currentUntil:)``.
    public func mark() -> SnapshotMark {
        state.withLock { SnapshotMark(clearings: $0.clearings, changesStarted: $0.changesStarted, changesEnded: $0.changesEnded) }
    }

    /// Replaces `screen`'s snapshot with `value`, saved for `user` at `date`, written whole or not at all;
    /// unless a clearing came after `mark`, when nothing is written (the value may be what was cleared).
    ///
    /// With `currentUntil` (when the first of the value's parts stops being fresh, as the caches reckon it),
    /// the snapshot is also sealed as current when no store change was under way at `mark` and none started
    /// since; otherwise it is saved unsealed.
    /// - Returns: whether the snapshot was written.
    /// - Throws: ``CacheError/invalidFeatureName(_:)`` when `screen` is not a plain file name (the rule of
    ///   feature names: letters, digits, `-`, `_` and `.`, so it cannot leave the folder); the encoder's or
    ///   the file system's error when the value does not encode or the file cannot be written.
    @discardableResult
    public func save<Value: Encodable>(
        _ value: Value, screen: String, user: String, at date: Date, readSince mark: SnapshotMark, currentUntil: Date? = nil
    ) throws -> Bool {
        guard isPlainFileName(screen) else { throw CacheError.invalidFeatureName(screen) }
        let (data, checksum) = StoredSnapshot.file(user: user, savedAt: date, body: try JSONEncoder().encode(value))
        return try state.withLock { state in
            guard state.clearings == mark.clearings else { return false }
            try ProtectedFiles.createDirectory(directory)
            // The old seal goes first: a process killed before the new picture is whole leaves nothing sealed.
            var seals = readSeals()
            if seals.removeValue(forKey: screen) != nil { try writeSeals(seals) }
            try ProtectedFiles.writeAtomically(data, to: fileURL(screen))
            if let currentUntil, mark.changesEnded == mark.changesStarted, state.changesStarted == mark.changesStarted,
                screen.utf8.count <= UInt8.max
            {
                seals[screen] = SnapshotSeal(checksum: checksum, until: currentUntil)
                try writeSeals(seals)
            }
            return true
        }
    }

    /// `screen`'s last snapshot, if `user` saved it, current (``ScreenSnapshot/isCurrent``) when it is sealed
    /// and `now` is within its seal. `nil` when there is none, when another user saved it, when `screen` is not
    /// a plain file name, or when the file is damaged (cut short, altered, or of another shape), which is then
    /// deleted.
    /// - Parameters:
    ///   - type: the value's type.
    ///   - screen: the screen's name, as it was saved.
    ///   - user: the signed-in user: a snapshot another user saved is not read.
    ///   - now: the device's clock, against the seal's end.
    ///   - decode: reads the value from the JSON `JSONEncoder` wrote for it; `JSONDecoder` by default. A screen read
    ///     at every launch may pass a faster reader, which must read those bytes as `JSONDecoder` would.
    public func load<Value: Decodable & Sendable>(
        _ type: Value.Type, screen: String, user: String, at now: Date = Date(),
        decode: (Data) throws -> Value = { try JSONDecoder().decode(Value.self, from: $0) }
    ) -> ScreenSnapshot<Value>? {
        guard isPlainFileName(screen) else { return nil }
        let url = fileURL(screen)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let stored: StoredSnapshot
        let value: Value
        do {
            stored = try StoredSnapshot(data)
            guard stored.isSaved(by: user) else { return nil }
            value = try decode(stored.body)
        } catch {
            state.withLock { _ in
                // A save since the read may have replaced the file: only the bytes found damaged are deleted.
                guard FileManager.default.contents(atPath: url.path) == data else { return }
                logger.warning("A screen snapshot could not be read; deleting it", metadata: ["screen": "\(screen)", "error": "\(error)"])
                try? FileManager.default.removeItem(at: url)
            }
            return nil
        }
        let seal = readSeals()[screen]
        let isCurrent = seal.map { $0.checksum == stored.checksum && stored.savedAt <= now && now < $0.until } ?? false
        return ScreenSnapshot(value: value, savedAt: stored.savedAt, isCurrent: isCurrent)
    }

    /// Whether `screen`'s snapshot is sealed as current at `now`: one small file read, and no snapshot read. An app
    /// that draws a sealed screen from its snapshot need not open the files its caches would read it from.
    public func isSealed(_ screen: String, at now: Date = Date()) -> Bool {
        readSeals()[screen].map { now < $0.until } ?? false
    }

    private func fileURL(_ screen: String) -> URL {
        directory.appendingPathComponent("\(screen).snapshot", isDirectory: false)
    }

    /// One file holds every screen's seal, so that a change deletes them all with one call, whichever instance
    /// (of this process) saved them.
    private var sealsURL: URL { directory.appendingPathComponent("current.seals", isDirectory: false) }

    /// The seals on disk; none when there is no file or it is damaged.
    private func readSeals() -> [String: SnapshotSeal] {
        FileManager.default.contents(atPath: sealsURL.path).flatMap(SnapshotSeal.decode) ?? [:]
    }

    private func writeSeals(_ seals: [String: SnapshotSeal]) throws {
        if seals.isEmpty { try removeFile(sealsURL) } else { try ProtectedFiles.writeAtomically(SnapshotSeal.encode(seals), to: sealsURL) }
    }

    /// Deletes `file`; one already gone is fine.
    private func removeFile(_ file: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    // MARK: Store changes

    /// A store is about to change: every seal is deleted first (one file, one call), or else emptied, which
    /// voids it as well. When the file system refuses both, the change still goes ahead (a logout's removals
    /// above all) and the failure is logged.
    public func storeWillChange() {
        state.withLock { state in
            state.changesStarted += 1
            do {
                try removeFile(self.sealsURL)
            } catch {
                guard truncate(sealsURL.path, 0) != 0 else { return }
                logger.error("A screen snapshot's seal could not be deleted nor emptied", metadata: ["error": "\(error)"])
            }
        }
    }

    /// A store's change has ended.
    public func storeDidChange() {
        state.withLock { $0.changesEnded += 1 }
    }

    /// The name in clearing reports.
    public var participantName: String { "snapshots" }
    /// Kept with a kit's own values.
    public var category: CacheCategory { .data }
    /// Outside the app-wide budget: a few small files.
    public var isInAppBudget: Bool { false }

    /// Deletes every snapshot (logout, session expiry).
    public func clearAll() throws {
        try state.withLock { state in
            state.clearings += 1
            guard FileManager.default.fileExists(atPath: directory.path) else { return }
            try FileManager.default.removeItem(at: directory)
        }
    }

    /// Deletes every snapshot: a screen's may show any account.
    public func clear(forAccountId accountId: String) throws { try clearAll() }

    /// Deletes every snapshot: a screen's may show the entry under any key.
    public func clear(forKey key: String) throws { try clearAll() }

    /// Deletes every snapshot: what was made stale must not be drawn as it was.
    public func expireAll() throws { try clearAll() }

    /// Unseals every snapshot: new timeouts may end their freshness sooner than their seals say.
    public func applyTimeouts() { around {} }
}

/// A screen as it was last shown (``ScreenSnapshots``).
public struct ScreenSnapshot<Value>: Sendable where Value: Sendable {
    /// What the screen showed.
    public var value: Value
    /// When it was saved, for the label that says how old it is.
    public var savedAt: Date
    /// Whether its parts were served fresh by the caches, no store has changed since, and their freshness has
    /// not ended (``ScreenSnapshots``, "Current snapshots"): a screen shows it as its read through the caches
    /// would, and need not make that read.
    public var isCurrent: Bool

    /// A snapshot of `value` saved at `savedAt`, current or not.
    public init(value: Value, savedAt: Date, isCurrent: Bool = false) {
        self.value = value
        self.savedAt = savedAt
        self.isCurrent = isCurrent
    }
}

/// Where clearings and store changes stood before a snapshot's value was read (``ScreenSnapshots/mark()``).
public struct SnapshotMark: Sendable, Hashable {
    let clearings: Int
    let changesStarted: Int
    let changesEnded: Int
}
