import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// `MemoryStore` evicts by second chance (CLOCK), not true LRU, so that a hit never re-links the list.
/// This measures what that costs in hits: both policies replay the same seeded traces with the same
/// capacity, and the store must stay within a point of the true LRU.
@Suite("Eviction policy", .timeLimit(.minutes(10)))
struct EvictionPolicyTests {
    /// A textbook LRU (dictionary and doubly linked list over arrays): the reference the store is held to.
    struct TrueLRU {
        let capacity: Int
        var slots: [Int: Int] = [:]
        var keys: [Int] = []
        var newer: [Int] = []
        var older: [Int] = []
        var newest = -1
        var oldest = -1

        mutating func access(_ key: Int) -> Bool {
            if let slot = slots[key] {
                unlink(slot)
                link(slot)
                return true
            }
            let slot: Int
            if keys.count < capacity {
                slot = keys.count
                keys.append(key)
                newer.append(-1)
                older.append(-1)
            } else {
                slot = oldest
                unlink(slot)
                slots[keys[slot]] = nil
                keys[slot] = key
            }
            slots[key] = slot
            link(slot)
            return false
        }

        private mutating func unlink(_ slot: Int) {
            if newer[slot] >= 0 { older[newer[slot]] = older[slot] } else { newest = older[slot] }
            if older[slot] >= 0 { newer[older[slot]] = newer[slot] } else { oldest = newer[slot] }
        }

        private mutating func link(_ slot: Int) {
            older[slot] = newest
            newer[slot] = -1
            if newest >= 0 { newer[newest] = slot }
            newest = slot
            if oldest < 0 { oldest = slot }
        }
    }

    static let keyCount = 10_000
    static let accesses = 100_000

    /// Key indexes drawn uniformly, or by Zipf's law with exponent `s` (a few keys most of the time).
    static func trace(zipf s: Double?) -> [Int] {
        var random = SeededRandom(seed: 0x5EED)
        guard let s else { return (0..<accesses).map { _ in Int.random(in: 0..<keyCount, using: &random) } }
        var cumulative: [Double] = []
        var sum = 0.0
        for rank in 1...keyCount {
            sum += 1 / pow(Double(rank), s)
            cumulative.append(sum)
        }
        return (0..<accesses).map { _ in
            let target = Double.random(in: 0..<sum, using: &random)
            var low = 0
            var high = keyCount - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return (low &* 7_919) % keyCount
        }
    }

    @Test(
        "second chance hits within a point of true LRU on the same trace",
        arguments: [(0.8, 500), (1.0, 500), (1.0, 1_000), (1.2, 1_000), (nil, 5_000)] as [(Double?, Int)])
    func hitRateAgainstTrueLRU(zipf: Double?, capacity: Int) throws {
        let trace = Self.trace(zipf: zipf)
        let metadata = CacheEntryMetadata(storedAt: Date(timeIntervalSince1970: 0), expiresAt: nil)
        let store = MemoryStore<Int>(limits: .init(countLimit: capacity, costLimit: .max), clock: ManualClock())
        var reference = TrueLRU(capacity: capacity)
        var storeHits = 0
        var referenceHits = 0
        for key in trace {
            if reference.access(key) { referenceHits += 1 }
            let name = "k\(key)"
            if store.get(name) != nil {
                storeHits += 1
            } else {
                store.set(key, forKey: name, metadata: metadata)
            }
        }
        let storeRate = Double(storeHits) / Double(trace.count)
        let referenceRate = Double(referenceHits) / Double(trace.count)
        let order = zipf.map { "Zipf s=\($0)" } ?? "uniform"
        print("hit rate, \(order), capacity \(capacity): second chance \(storeRate), true LRU \(referenceRate)")
        #expect(store.usage().count == capacity)
        #expect(storeRate >= referenceRate - 0.01, "second chance \(storeRate) against true LRU \(referenceRate)")
    }
}
