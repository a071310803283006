import Foundation

/// The data structure behind ``MemoryStore``: a hash index into a contiguous array of nodes, linked in
/// insertion order, evicted by the second-chance rule (CLOCK).
///
/// A hit only sets the node's `referenced` bit, and only when it is clear, so a read writes nothing to the
/// node's neighbours (a true LRU re-links every hit, which scatters writes over three nodes). Eviction
/// looks at the oldest node: a referenced one is given a second chance (its bit cleared, moved to the
/// newest end), an unreferenced one goes. On the traces in `BENCHMARKS.md` its hit rate is within a
/// point of a true LRU's. Get, set and remove are O(1) (eviction amortized); removal moves the last node
/// into the freed slot, so the array never has holes. Not thread-safe on its own.
@usableFromInline
struct SecondChanceTable<Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: String
        @usableFromInline var value: Value
        @usableFromInline var metadata: CacheEntryMetadata
        @usableFromInline var cost: Int
        @usableFromInline var newer: Int32  // towards the newest end, or -1
        @usableFromInline var older: Int32  // towards the oldest end, or -1
        @usableFromInline var referenced: Bool

        @inlinable
        init(key: String, value: Value, metadata: CacheEntryMetadata, cost: Int, newer: Int32, older: Int32) {
            self.key = key
            self.value = value
            self.metadata = metadata
            self.cost = cost
            self.newer = newer
            self.older = older
            self.referenced = false
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

    /// Inserts `key` as the newest node, or replaces its value and marks it used.
    @inlinable
    mutating func upsert(_ key: String, value: Value, metadata: CacheEntryMetadata, cost: Int) {
        if let slot = slot(of: key) {
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].metadata = metadata
            nodes[slot].cost = cost
            nodes[slot].referenced = true
            return
        }
        let slot = nodes.count
        nodes.append(Node(key: key, value: value, metadata: metadata, cost: cost, newer: -1, older: -1))
        index[key] = Int32(slot)
        totalCost += cost
        linkAsNewest(slot)
    }

    /// The slot to evict next: the oldest node whose bit is clear. Referenced nodes passed on the way
    /// have their bit cleared and move to the newest end (their second chance).
    @inlinable
    mutating func victimSlot() -> Int? {
        while oldest >= 0 {
            let slot = Int(oldest)
            guard nodes[slot].referenced else { return slot }
            nodes[slot].referenced = false
            guard newest != oldest else { return slot }
            unlink(slot)
            linkAsNewest(slot)
        }
        return nil
    }

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
            let newer = nodes[slot].newer
            let older = nodes[slot].older
            index[nodes[slot].key] = Int32(slot)
            if newer >= 0 { nodes[Int(newer)].older = Int32(slot) } else { newest = Int32(slot) }
            if older >= 0 { nodes[Int(older)].newer = Int32(slot) } else { oldest = Int32(slot) }
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
        self = SecondChanceTable()
    }

    /// Rewrites the metadata of every node.
    mutating func updateMetadata(_ update: (inout CacheEntryMetadata) -> Void) {
        for slot in nodes.indices { update(&nodes[slot].metadata) }
    }

    /// Keys in the order eviction would spare them, the last to go first: the referenced nodes from newest
    /// to oldest, then the others from newest to oldest.
    var keysByRecency: [String] {
        var referenced: [String] = []
        var others: [String] = []
        var slot = newest
        while slot >= 0 {
            let node = nodes[Int(slot)]
            if node.referenced { referenced.append(node.key) } else { others.append(node.key) }
            slot = node.older
        }
        return referenced + others
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer >= 0 { nodes[Int(newer)].older = older } else { newest = older }
        if older >= 0 { nodes[Int(older)].newer = newer } else { oldest = newer }
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
