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

    /// Deletes `user`'s file in `directory` by either name, and what a write of it killed half way left, creating
    /// nothing (no key file either), then the folder's key if nothing else is left: an account's deletion leaves
    /// neither.
    public func eraseUserFile(_ user: String, suffix: String, in directory: URL) throws {
        // Named by this secret's key, and by the key the folder's file holds, should another secret of the folder have
        // written one since.
        let names = Set([hash(user)] + (Self.stored(in: directory).map { [Self.hash(user, key: $0)] } ?? []))
        let files =
            names.map { directory.appendingPathComponent($0 + suffix, isDirectory: false) } + [
                Self.legacyUserFile(user, suffix: suffix, in: directory)
            ]
        for file in files {
            ProtectedFiles.removeTemporaryFiles(of: file)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
        try Self.deleteIfAlone(in: directory)
    }

    /// Deletes `directory`'s key once nothing else is left in the folder (its last user's file erased): the key of
    /// names that no longer exist, which a deletion must not leave behind.
    public static func deleteIfAlone(in directory: URL) throws {
        ProtectedFiles.removeTemporaryFiles(of: directory.appendingPathComponent(fileName, isDirectory: false))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        if names.allSatisfy({ $0 == fileName }) { try delete(in: directory) }
    }

    /// The name earlier versions gave `user`'s file: an unkeyed hash, which anyone can compute from a guess.
    public static func legacyUserFile(_ user: String, suffix: String, in directory: URL) -> URL {
        directory.appendingPathComponent(StableHash.hex(user) + suffix, isDirectory: false)
    }
}
