/// The per-record counters a search fills: how many query words each record matched, its best rank for
/// the current word, and its score. Kept between searches and zeroed again only where a search wrote, so
/// a search costs what it matches, not what the index holds (zeroing them whole was the one part of a
/// search that grew with the index: 2.5× from 1,000 to 100,000 records).
struct SearchScratch {
    var matched: [UInt8] = []
    var best: [UInt8] = []
    var score: [UInt16] = []

    /// Counters from `pool` (or new ones) with room for `count` records, the new ones zeroed. The pool no
    /// longer holds them, so a search writes them without a copy.
    static func take(from pool: Locked<[SearchScratch]>, count: Int) -> SearchScratch {
        var scratch = pool.withLock { $0.popLast() } ?? SearchScratch()
        if scratch.matched.count < count {
            let extra = count - scratch.matched.count
            scratch.matched.append(contentsOf: repeatElement(0, count: extra))
            scratch.best.append(contentsOf: repeatElement(0, count: extra))
            scratch.score.append(contentsOf: repeatElement(0, count: extra))
        }
        return scratch
    }

    /// Zeroes the counters of `touched`, every record a search wrote, and gives them back to `pool`
    /// (which keeps four at most, one per search running at once).
    mutating func giveBack(to pool: Locked<[SearchScratch]>, touched: [Int32]) {
        if touched.count > matched.count / 16 {
            // A broad query (a letter): zeroing in one sweep beats as many scattered writes.
            matched.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            best.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            score.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        } else {
            for slot in touched.lazy.map(Int.init) {
                matched[slot] = 0
                best[slot] = 0
                score[slot] = 0
            }
        }
        let scratch = self
        self = SearchScratch()  // the pool's copy is then the arrays' only reference
        pool.withLock { if $0.count < 4 { $0.append(scratch) } }
    }
}
