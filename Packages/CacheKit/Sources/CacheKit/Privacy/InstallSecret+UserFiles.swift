import Foundation

// A user's own file in a folder, named so that a guessed user id finds nothing.
extension InstallSecret {
    /// The file of `user` in `directory`: `<keyed hash of user><suffix>` (``fileNameHash(_:)``). A file an earlier
    /// version named by the unkeyed hash (`StableHash.hex(user)`) is moved to that name first, so an upgrade keeps
    /// what it holds. It is moved only once the key is on disk (a key for this process alone, when its file cannot be
    /// written, would name it differently after a relaunch, and lose it); until then, or if the move fails, the old
    /// file is returned and used where it is.
    public func userFile(_ user: String, suffix: String, in directory: URL) -> URL {
        let named = directory.appendingPathComponent(fileNameHash(user) + suffix, isDirectory: false)
        let legacy = Self.legacyUserFile(user, suffix: suffix, in: directory)
        let files = FileManager.default
        guard files.fileExists(atPath: legacy.path), !files.fileExists(atPath: named.path) else { return named }
        guard isOnDisk, (try? files.moveItem(at: legacy, to: named)) != nil else { return legacy }
        return named
    }

    /// The file of `user` in `directory` if there is one, by either name, creating nothing (no key file either): for
    /// erasing.
    public func existingUserFiles(_ user: String, suffix: String, in directory: URL) -> [URL] {
        [
            directory.appendingPathComponent(hash(user) + suffix, isDirectory: false),
            Self.legacyUserFile(user, suffix: suffix, in: directory),
        ]
        .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Deletes `directory`'s key once nothing else is left in the folder (its last user's file erased): the key of
    /// names that no longer exist, which a deletion must not leave behind.
    public static func deleteIfAlone(in directory: URL) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        if names.allSatisfy({ $0 == fileName }) { try delete(in: directory) }
    }

    /// The name earlier versions gave `user`'s file: an unkeyed hash, which anyone can compute from a guess.
    public static func legacyUserFile(_ user: String, suffix: String, in directory: URL) -> URL {
        directory.appendingPathComponent(StableHash.hex(user) + suffix, isDirectory: false)
    }
}
