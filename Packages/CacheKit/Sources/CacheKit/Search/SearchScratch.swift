/// The per-record counters a search fills: how many query words each record matched, its best rank for
/// the current word, and its score. Kept between searches and zeroed again only where a search wrote, so
/// a search costs what it matches, not what the index holds (zeroing them whole was the one part of a
/// search that grew with the index: 2.5× from 1,000 to 100,000 records).
struct SearchScratch {
    /// One record's counters, in four bytes.
    struct Counter {
        /// How many query words the record matched so far.
        var matched: UInt8 = 0
        /// Its best rank for the current word (lower is better).
        var best: UInt8 = 0
        /// Its best ranks summed.
        var score: UInt16 = 0
    }

    /// Each slot's counters.
    var counters: [Counter] = []

    /// Counters from `pool` (or new ones) with room for `count` records, the new ones zeroed. The pool no
    /// longer holds them, so a search writes them without a copy.
    static func take(from pool: Locked<[SearchScratch]>, count: Int) -> SearchScratch {
        var scratch = pool.withLock { $0.popLast() } ?? SearchScratch()
        if scratch.counters.count < count {
            scratch.counters.append(contentsOf: repeatElement(Counter(), count: count - scratch.counters.count))
        }
        return scratch
    }

    /// Zeroes the counters of `touched`, every record a search wrote, and gives them back to `pool`
    /// (which keeps four at most, one per search running at once).
    mutating func giveBack(to pool: Locked<[SearchScratch]>, touched: [Int32]) {
        if touched.count > counters.count / 16 {
            // A broad query (a letter): zeroing in one sweep beats as many scattered writes.
            counters.withUnsafeMutableBufferPointer { $0.update(repeating: Counter()) }
        } else {
            for slot in touched { counters[Int(slot)] = Counter() }
        }
        let scratch = self
        self = SearchScratch()  // the pool's copy is then the arrays' only reference
        pool.withLock { if $0.count < 4 { $0.append(scratch) } }
    }
}
