/// What a store tells before and after each change to what it holds: a write, a removal, an eviction, a
/// clearing, a new expiry. Reads and recency are not changes.
///
/// ``ScreenSnapshots`` is one: a snapshot saved as exactly what the stores held is unsealed before any of
/// them changes, so a relaunch never takes it for what they hold once they hold something else. The stores
/// screens are read from tell their ``CacheEnvironment``'s ``CacheEnvironment/storeChanges``.
public protocol StoreChangeObserver: Sendable {
    /// A change is about to start. Called before anything is written, so a process killed during the change
    /// leaves nothing that vouches for the store as it was. It never stops the change (a logout's removals
    /// above all): an observer that cannot take note logs it.
    func storeWillChange()
    /// The change that ``storeWillChange()`` announced has ended, done or failed.
    func storeDidChange()
}

extension StoreChangeObserver {
    /// Runs `change` between ``storeWillChange()`` and ``storeDidChange()``.
    /// - Throws: what `change` throws.
    public func around<T>(_ change: () throws -> T) rethrows -> T {
        storeWillChange()
        defer { storeDidChange() }
        return try change()
    }
}
