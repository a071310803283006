import Foundation

/// Where personal data is written: folders only their owner can open (0700) and files only their owner can
/// read (0600), whatever the process's umask; on Apple platforms with a data-protection class as well
/// (complete until first authentication for caches, so background refreshes still work after a reboot
/// and unlock). Every store creates its folders and files through this (security review, finding 6).
public enum ProtectedFiles {
    /// Creates `directory` (and missing parents) as 0700, or narrows an existing one to 0700.
    /// - Throws: when the folder cannot be created or its permissions set.
    public static func createDirectory(_ directory: URL) throws {
        var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            attributes[.protectionKey] = FileProtectionType.completeUntilFirstUserAuthentication
        #endif
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: attributes)
        try FileManager.default.setAttributes(attributes, ofItemAtPath: directory.path)
    }

    /// Narrows an existing file to 0600, and the `-wal`, `-shm` and `-journal` files of an SQLite database
    /// beside it (SQLite creates those later with the database's mode, or at once with the umask's).
    /// - Throws: when the permissions cannot be set.
    public static func protectFile(_ file: URL) throws {
        var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o600]
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            attributes[.protectionKey] = FileProtectionType.completeUntilFirstUserAuthentication
        #endif
        try FileManager.default.setAttributes(attributes, ofItemAtPath: file.path)
        for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            try FileManager.default.setAttributes(attributes, ofItemAtPath: file.path + suffix)
        }
    }

    /// The POSIX permissions of `url`, or `nil` when it cannot be read.
    public static func permissions(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int
    }
}
