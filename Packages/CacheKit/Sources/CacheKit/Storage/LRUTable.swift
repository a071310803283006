import Foundation

/// The data structure behind ``MemoryStore``: a hash index into a contiguous array of nodes that
/// form a doubly linked list in recency order. Get, set, touch and remove are O(1); removal moves the
/// last node into the freed slot, so the array never has holes. Not thread-safe on its own.
@usableFromInline
struct LRUTable<Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: String
        @usableFromInline var value: Value
        @usableFromInline var metadata: CacheEntryMetadata
        @usableFromInline var cost: Int
        @usableFromInline var newer: Int32  // towards the most recently used end, or -1
        @usableFromInline var older: Int32  // towards the least recently used end, or -1

        @inlinable
        init(key: String, value: Value, metadata: CacheEntryMetadata, cost: Int, newer: Int32, older: Int32) {
            self.key = key
            self.value = value
            self.metadata = metadata
            self.cost = cost
            self.newer = newer
            self.older = older
        }
    }

    @inlinable
    init() {}

    @usableFromInline var nodes: ContiguousArray<Node> = []
    @usableFromInline var index: [String: Int32] = [:]
    @usableFromInline var newest: Int32 = -1
    @usableFromInline var oldest: Int32 = -1
    @usableFromInline var totalCost = 0

    @inlinable var count: Int { nodes.count }

    /// The slot of `key`, if present.
    @inlinable
    func slot(of key: String) -> Int? {
        index[key].map(Int.init)
    }

    /// Marks the node at `slot` most recently used.
    @inlinable
    mutating func touch(_ slot: Int) {
        guard newest != Int32(slot) else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Inserts or replaces `key`, making it the most recently used.
    @inlinable
    mutating func upsert(_ key: String, value: Value, metadata: CacheEntryMetadata, cost: Int) {
        if let slot = slot(of: key) {
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].metadata = metadata
            nodes[slot].cost = cost
            touch(slot)
            return
        }
        let slot = nodes.count
        nodes.append(Node(key: key, value: value, metadata: metadata, cost: cost, newer: -1, older: -1))
        index[key] = Int32(slot)
        totalCost += cost
        linkAsNewest(slot)
    }

    /// The least recently used slot, if any.
    @inlinable var oldestSlot: Int? { oldest < 0 ? nil : Int(oldest) }

    /// Removes the node at `slot`.
    @inlinable
    mutating func remove(at slot: Int) {
        unlink(slot)
        totalCost -= nodes[slot].cost
        index[nodes[slot].key] = nil
        let last = nodes.count - 1
        if slot != last {
            // Move the last node into the hole and repoint its neighbours.
            nodes.swapAt(slot, last)
            let moved = nodes[slot]
            index[moved.key] = Int32(slot)
            if moved.newer >= 0 { nodes[Int(moved.newer)].older = Int32(slot) } else { newest = Int32(slot) }
            if moved.older >= 0 { nodes[Int(moved.older)].newer = Int32(slot) } else { oldest = Int32(slot) }
        }
        nodes.removeLast()
    }

    /// Removes every node for which `predicate` is true; returns how many.
    mutating func removeAll(where predicate: (Node) -> Bool) -> Int {
        var removed = 0
        var slot = nodes.count - 1
        while slot >= 0 {
            if predicate(nodes[slot]) {
                remove(at: slot)
                removed += 1
            }
            slot -= 1
        }
        return removed
    }

    /// Removes everything and releases the storage.
    mutating func removeAll() {
        self = LRUTable()
    }

    /// Rewrites the metadata of every node.
    mutating func updateMetadata(_ update: (inout CacheEntryMetadata) -> Void) {
        for slot in nodes.indices { update(&nodes[slot].metadata) }
    }

    /// Keys from most to least recently used.
    var keysByRecency: [String] {
        var keys: [String] = []
        keys.reserveCapacity(nodes.count)
        var slot = newest
        while slot >= 0 {
            keys.append(nodes[Int(slot)].key)
            slot = nodes[Int(slot)].older
        }
        return keys
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let node = nodes[slot]
        if node.newer >= 0 { nodes[Int(node.newer)].older = node.older } else { newest = node.older }
        if node.older >= 0 { nodes[Int(node.older)].newer = node.newer } else { oldest = node.newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[Int(newest)].newer = Int32(slot) }
        newest = Int32(slot)
        if oldest < 0 { oldest = Int32(slot) }
    }
}
