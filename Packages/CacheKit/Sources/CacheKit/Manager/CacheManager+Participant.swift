extension CacheManager: CacheClearingParticipant {
    /// The feature name.
    public nonisolated var participantName: String { feature }

    /// Removes everything from memory and deletes the disk store's files.
    public func clearAll() throws {
        try removeAll()
    }

    /// Removes the entries whose account is exactly `accountId`.
    public func clear(forAccountId accountId: String) throws {
        try removeAll(matching: .account(accountId))
    }

    /// Removes the entry under `key`.
    public func clear(forKey key: String) throws {
        try remove(forKey: key)
    }

    /// Counts and sizes of the memory store and, if any, the disk store.
    public func statistics() throws -> [CacheStoreStatistics] {
        var rows = [
            CacheStoreStatistics(
                participant: feature, category: category,
                counts: counts(ofStore: memory.name), usage: memory.usage())
        ]
        if let disk {
            rows.append(
                CacheStoreStatistics(
                    participant: feature, category: category,
                    counts: counts(ofStore: disk.name), usage: try disk.usage()))
        }
        return rows
    }

    /// Trims the memory and disk stores, each to its share of `bytes` in proportion to what it holds.
    public func trim(toBytes bytes: Int) throws {
        try trimStores(memory: memory, disk: disk, toBytes: bytes)
    }

    /// Every entry of both stores, redacted.
    public func exportEntries() throws -> [CacheExportEntry] {
        let inMemory = memory.describeEntries().map {
            CacheExportEntry(participant: feature, store: memory.name, entry: $0)
        }
        let onDisk =
            try disk.map { disk in
                try disk.describeEntries().map { CacheExportEntry(participant: feature, store: disk.name, entry: $0) }
            } ?? []
        return inMemory + onDisk
    }
}
