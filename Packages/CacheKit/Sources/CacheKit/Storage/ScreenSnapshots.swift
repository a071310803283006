import Foundation
import Logging

/// What a screen showed the last time, kept per user in one small file per screen, so that a relaunch
/// can draw its first frame from one file read and one decode, before any client, cache or database
/// is built; the screen's real read from the caches follows once the app is composed, and replaces it.
///
/// A snapshot is a picture of the past, not a cache to serve from: it has no freshness, only an age
/// (``ScreenSnapshot/savedAt``), and a screen shows it labelled as such. It belongs to the user who
/// saved it: ``load(_:screen:user:)`` returns nothing for anyone else. Registered with the
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
public final class ScreenSnapshots: CacheClearingParticipant {
    /// The folder of the snapshot files (created on first save).
    public let directory: URL
    private let logger: Logger
    /// How many clearings there have been; held while a file is written or the folder deleted.
    private let clearings = Locked(0)

    /// Snapshots in `directory`, a folder of their own under the caches folder.
    public init(directory: URL, logger: Logger = Logger(label: "CacheKit.ScreenSnapshots")) {
        self.directory = directory
        self.logger = logger
    }

    /// What one file holds, after its checksum.
    private struct Stored<Value: Codable>: Codable {
        var user: String
        var savedAt: Date
        var value: Value
    }

    /// Where clearings stand now: take it before reading what a snapshot will hold, and pass it to
    /// ``save(_:screen:user:at:readSince:)``.
    public func mark() -> SnapshotMark {
        SnapshotMark(clearings: clearings.withLock { $0 })
    }

    /// Replaces `screen`'s snapshot with `value`, saved for `user` at `date`, written whole or not at all;
    /// unless a clearing came after `mark`, when nothing is written (the value may be what was cleared).
    /// - Returns: whether the snapshot was written.
    /// - Throws: ``CacheError/invalidFeatureName(_:)`` when `screen` is not a plain file name (the rule of
    ///   feature names: letters, digits, `-`, `_` and `.`, so it cannot leave the folder); the encoder's or
    ///   the file system's error when the value does not encode or the file cannot be written.
    @discardableResult
    public func save<Value: Codable>(_ value: Value, screen: String, user: String, at date: Date, readSince mark: SnapshotMark) throws
        -> Bool
    {
        guard isPlainFileName(screen) else { throw CacheError.invalidFeatureName(screen) }
        let body = try JSONEncoder().encode(Stored(user: user, savedAt: date, value: value))
        var data = withUnsafeBytes(of: CRC32.checksum(body).littleEndian) { Data($0) }
        data.append(body)
        return try clearings.withLock { clearings in
            guard clearings == mark.clearings else { return false }
            try ProtectedFiles.createDirectory(directory)
            try ProtectedFiles.writeAtomically(data, to: fileURL(screen))
            return true
        }
    }

    /// `screen`'s last snapshot, if `user` saved it. `nil` when there is none, when another user saved it,
    /// when `screen` is not a plain file name, or when the file is damaged (cut short, altered, or of another
    /// shape), which is then deleted.
    public func load<Value: Codable>(_ type: Value.Type, screen: String, user: String) -> ScreenSnapshot<Value>? {
        guard isPlainFileName(screen) else { return nil }
        let url = fileURL(screen)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let stored: Stored<Value>
        do {
            guard data.count > 4,
                UInt32(littleEndian: data.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                    == CRC32.checksum(data.dropFirst(4))
            else { throw CocoaError(.fileReadCorruptFile) }
            stored = try JSONDecoder().decode(Stored<Value>.self, from: data.dropFirst(4))
        } catch {
            logger.warning("A screen snapshot could not be read; deleting it", metadata: ["screen": "\(screen)", "error": "\(error)"])
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        guard stored.user == user else { return nil }
        return ScreenSnapshot(value: stored.value, savedAt: stored.savedAt)
    }

    private func fileURL(_ screen: String) -> URL {
        directory.appendingPathComponent("\(screen).snapshot", isDirectory: false)
    }

    /// The name in clearing reports.
    public var participantName: String { "snapshots" }
    /// Kept with a kit's own values.
    public var category: CacheCategory { .data }
    /// Outside the app-wide budget: a few small files.
    public var isInAppBudget: Bool { false }

    /// Deletes every snapshot (logout, session expiry).
    public func clearAll() throws {
        try clearings.withLock { clearings in
            clearings += 1
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
}

/// A screen as it was last shown (``ScreenSnapshots``).
public struct ScreenSnapshot<Value>: Sendable where Value: Sendable {
    /// What the screen showed.
    public var value: Value
    /// When it was saved, for the label that says how old it is.
    public var savedAt: Date
}

/// Where clearings stood before a snapshot's value was read (``ScreenSnapshots/mark()``).
public struct SnapshotMark: Sendable, Hashable {
    let clearings: Int
}
