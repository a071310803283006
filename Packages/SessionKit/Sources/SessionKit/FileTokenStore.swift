import CacheKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the token in a file readable by its owner only (0600, in a 0700 folder), replaced
/// atomically: written to a temporary file created 0600, flushed to disk, then renamed over the old
/// one, so a process that dies mid-write leaves the old token or the new one, never half of one.
/// A process killed between the write and the rename leaves its temporary file behind, which holds
/// a token: opening the store, every save and every delete remove such stray files, so logout,
/// expiry and account deletion leave no token on disk. The token never reaches a log.
public final class FileTokenStore: TokenStore {
    /// The file.
    public let url: URL

    /// Creates a store for `url`; the folder is created on first save. Stray temporary files that a
    /// killed process left beside it are removed.
    public init(url: URL) {
        self.url = url
        removeStrayTemporaryFiles()
    }

    /// Where an app keeps its token file: in application support, which the system never purges
    /// (unlike the caches folder), under the app's own folder: `Application Support/<app>/session/
    /// token.json` on Apple platforms (prefer `KeychainTokenStore` there), and
    /// `$XDG_DATA_HOME/<app>/session/token.json` (by default `~/.local/share/…`) on Linux.
    /// - Parameter app: the app's folder name (its bundle identifier or executable name).
    public static func defaultURL(app: String) -> URL {
        let support: URL
        #if canImport(Darwin)
            support =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support", isDirectory: true)
        #else
            if let dataHome = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
                support = URL(fileURLWithPath: dataHome)
            } else {
                support = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
            }
        #endif
        return support.appendingPathComponent(app, isDirectory: true).appendingPathComponent("session/token.json", isDirectory: false)
    }

    /// The prefix and suffix of the temporary files ``save(_:)`` writes: `.token.json.<UUID>.tmp`.
    private var temporaryPrefix: String { ".\(url.lastPathComponent)." }
    private static let temporarySuffix = ".tmp"

    /// Removes every temporary file of this store in its folder (left by a process killed mid-save).
    private func removeStrayTemporaryFiles() {
        let folder = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
            unlink(folder.appendingPathComponent(name, isDirectory: false).path)
        }
    }

    /// Reads and decodes the file.
    public func load() throws(TokenStoreError) -> StoredToken? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw .io(operation: "read", errno: errno)
        }
        do {
            return try JSONDecoder().decode(StoredToken.self, from: data)
        } catch {
            throw .corrupt(reason: "the token file does not decode (\(data.count) bytes)")
        }
    }

    /// Writes a 0600 temporary file, flushes it, and renames it over the token file.
    public func save(_ token: StoredToken) throws(TokenStoreError) {
        let folder = url.deletingLastPathComponent()
        do {
            // 0700 whether it is created now or was there already, open to others.
            try ProtectedFiles.createDirectory(folder)
        } catch {
            throw .io(operation: "mkdir", errno: errno)
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(token)
        } catch {
            throw .corrupt(reason: "the token does not encode")
        }
        removeStrayTemporaryFiles()
        let temporary = folder.appendingPathComponent(temporaryPrefix + UUID().uuidString + Self.temporarySuffix, isDirectory: false).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "open", errno: errno) }
        let written = data.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress, buffer.count) }
        let flushed = fsync(descriptor)
        let failure = errno
        close(descriptor)
        guard written == data.count, flushed == 0 else {
            unlink(temporary)
            throw .io(operation: "write", errno: failure)
        }
        guard rename(temporary, url.path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw .io(operation: "rename", errno: failure)
        }
    }

    /// Removes the file, and any temporary file a killed save left beside it.
    public func delete() throws(TokenStoreError) {
        removeStrayTemporaryFiles()
        if unlink(url.path) != 0 && errno != ENOENT { throw .io(operation: "unlink", errno: errno) }
    }
}
