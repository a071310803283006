import Foundation

/// Where personal data is written: folders only their owner can open (0700) and files only their owner can
/// read (0600), whatever the process's umask; on Apple platforms with a data-protection class as well
/// (complete until first authentication for caches, so background refreshes still work after a reboot
/// and unlock). Every store creates its folders and files through this (security review, finding 6).
public enum ProtectedFiles {
    /// Creates `directory` (and missing parents) as 0700, or narrows an existing one to 0700.
    /// - Throws: when the folder cannot be created or its permissions set.
    public static func createDirectory(_ directory: URL) throws {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            let attributes: [FileAttributeKey: Any] = [
                .posixPermissions: Int(folderMode), .protectionKey: FileProtectionType.completeUntilFirstUserAuthentication,
            ]
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: attributes)
            try FileManager.default.setAttributes(attributes, ofItemAtPath: directory.path)
        #else
            // Straight to the system calls: every store opens through here, and FileManager's attribute
            // dictionaries took a fifth of a millisecond of each relaunch.
            let path = directory.path
            if mkdir(path, folderMode) == 0 || errno == EEXIST {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw POSIXError(.ENOTDIR)
                }
                try changeMode(path, to: folderMode)
                return
            }
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(folderMode)])
            try changeMode(path, to: folderMode)
        #endif
    }

    /// Narrows an existing file to 0600, and the `-wal`, `-shm` and `-journal` files of an SQLite database
    /// beside it (SQLite creates those later with the database's mode, or at once with the umask's).
    /// - Throws: when the permissions cannot be set.
    public static func protectFile(_ file: URL) throws {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            let attributes: [FileAttributeKey: Any] = [
                .posixPermissions: Int(fileMode), .protectionKey: FileProtectionType.completeUntilFirstUserAuthentication,
            ]
            try FileManager.default.setAttributes(attributes, ofItemAtPath: file.path)
            for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: file.path + suffix) {
                try FileManager.default.setAttributes(attributes, ofItemAtPath: file.path + suffix)
            }
        #else
            try changeMode(file.path, to: fileMode)
            for suffix in ["-wal", "-shm", "-journal"] {
                try changeMode(file.path + suffix, to: fileMode, ifPresent: true)
            }
        #endif
    }

    /// Writes `data` to `file` whole or not at all: into a temporary file created 0600 beside it (never
    /// readable by others, not even for a moment), then renamed over `file`. A process killed half way
    /// leaves the old file or the new one (and perhaps a stray temporary file beside it, which no reader
    /// opens and the next write deletes). Not flushed to disk: for caches, which a power cut may lose but
    /// never mix. Writes to one file must not run at once (its owner holds a lock).
    /// - Throws: the system's error when the file cannot be created, written or renamed.
    public static func writeAtomically(_ data: Data, to file: URL) throws {
        removeTemporaryFiles(of: file)
        let temporary = try temporaryCopy(of: data, beside: file)
        guard rename(temporary, file.path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            try protectFile(file)
        #endif
    }

    /// Creates `file` holding `data` unless it exists: written in full under a temporary name, then linked into place,
    /// so no reader sees it half written, and of two creators at once exactly one succeeds.
    /// - Returns: `false`, writing nothing, when the file exists.
    /// - Throws: the system's error when the file cannot be written.
    public static func createExclusively(_ data: Data, at file: URL) throws -> Bool {
        let temporary = try temporaryCopy(of: data, beside: file)
        defer { unlink(temporary) }
        guard link(temporary, file.path) == 0 else {
            if errno == EEXIST { return false }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            try protectFile(file)
        #endif
        return true
    }

    /// `data` written whole to a new temporary file created 0600 beside `file`: its path.
    private static func temporaryCopy(of data: Data, beside file: URL) throws -> String {
        let temporary = file.path + ".\(UUID().uuidString)" + temporarySuffix
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, fileMode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let written = data.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress, buffer.count) }
        let failure = errno
        close(descriptor)
        guard written == data.count else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        return temporary
    }

    /// Deletes the temporary files of writes to `file` that a killed process left half way (a deletion of `file`
    /// takes them too: they hold what it held).
    public static func removeTemporaryFiles(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = file.lastPathComponent + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(temporarySuffix) {
            unlink(folder.appendingPathComponent(name, isDirectory: false).path)
        }
    }

    /// How ``writeAtomically(_:to:)``'s temporary files end.
    private static let temporarySuffix = ".tmp"

    /// Folders only their owner can open.
    static let folderMode: mode_t = 0o700
    /// Files only their owner can read.
    static let fileMode: mode_t = 0o600

    /// `chmod`, throwing the system's error (none for a missing file when `ifPresent`).
    private static func changeMode(_ path: String, to mode: mode_t, ifPresent: Bool = false) throws {
        guard chmod(path, mode) != 0 else { return }
        let code = errno
        if ifPresent && code == ENOENT { return }
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }

    /// The POSIX permissions of `url`, or `nil` when it cannot be read.
    public static func permissions(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int
    }
}
