import Foundation

// How a search ranks: the postings of a prefix, the counters of each record, broad terms ranked once and the
// sort order.
extension SearchIndex {
    /// `term` ranked (``Broad``).
    static func ranked(_ term: String, in contents: Contents) -> Broad {
        var ranks = [UInt8](repeating: .max, count: contents.ids.count)
        var matching: [Int32] = []
        for run in contents.runs {
            for posting in run[range(of: term, in: run)] where isValid(posting, in: contents.versions) {
                let rank = rank(posting, for: term)
                if ranks[Int(posting.slot)] == .max { matching.append(posting.slot) }
                ranks[Int(posting.slot)] = min(ranks[Int(posting.slot)], rank)
            }
        }
        let order = contents.order ?? []
        matching.sort { a, b in
            let (ra, rb) = (ranks[Int(a)], ranks[Int(b)])
            return ra != rb ? ra < rb : order[Int(a)] < order[Int(b)]
        }
        return Broad(ranks: ranks, ranked: matching)
    }

    /// A posting's rank for a query term: a name before other text before a phone, a whole word before a prefix.
    @inline(__always)
    static func rank(_ posting: Posting, for term: String) -> UInt8 {
        posting.kind &* 2 &+ (posting.term.utf8.count == term.utf8.count ? 0 : 1)
    }

    /// How many postings, valid or not, have a term starting with `term`.
    static func postingCount(of term: String, in contents: Contents) -> Int {
        contents.runs.reduce(0) { $0 + range(of: term, in: $1).count }
    }

    /// Counts, for each record, the query terms it matches and the best rank of each (the lower the
    /// better: a name before other words, a whole word before a prefix), into `scratch`. Returns the records
    /// the first term matched, the only ones written. A broad term (``Broad``) is read from its ranks: as the
    /// first, its matching slots in one pass; after it, one lookup per candidate. On the counters' memory
    /// directly: this loop is a search's work, and the array's copy-on-write check on every write took a tenth of it.
    static func count(_ terms: [String], in contents: Contents, into scratch: inout SearchScratch) -> [Int32] {
        var candidates: [Int32] = []
        scratch.counters.withUnsafeMutableBufferPointer { counters in
            for (index, term) in terms.enumerated() {
                let round = UInt8(index)
                if let broad = contents.broad[term] {
                    let slots = index == 0 ? broad.ranked : candidates
                    for slot in slots {
                        let counter = counters[Int(slot)]
                        let rank = broad.ranks[Int(slot)]
                        guard counter.matched == round, rank != .max else { continue }
                        counters[Int(slot)] = .init(matched: round + 1, best: rank, score: counter.score + UInt16(rank))
                    }
                    if index == 0 { candidates = broad.ranked }
                    continue
                }
                for run in contents.runs {
                    for posting in run[range(of: term, in: run)] where isValid(posting, in: contents.versions) {
                        var counter = counters[Int(posting.slot)]
                        guard counter.matched >= round else { continue }
                        let rank = rank(posting, for: term)
                        if counter.matched == round {
                            counter = .init(matched: round + 1, best: rank, score: counter.score + UInt16(rank))
                            if round == 0 { candidates.append(posting.slot) }
                        } else if rank < counter.best {
                            counter.score -= UInt16(counter.best - rank)
                            counter.best = rank
                        }
                        counters[Int(posting.slot)] = counter
                    }
                }
            }
        }
        return candidates
    }

    /// The first `count` of `results` in `order`: the whole sort only when the page reaches deep into them; else
    /// one pass keeping the best `count` in order (a one-letter query matches most records, and a page is 20).
    static func first(_ count: Int, of results: [Int32], by order: (Int32, Int32) -> Bool) -> [Int32] {
        guard count > 0 else { return [] }
        guard count < results.count / 8 else { return Array(results.sorted(by: order).prefix(count)) }
        var best: [Int32] = []
        best.reserveCapacity(count + 1)
        for result in results {
            if best.count == count, let last = best.last, !order(result, last) { continue }
            var low = 0
            var high = best.count
            while low < high {
                let middle = (low + high) / 2
                if order(result, best[middle]) { high = middle } else { low = middle + 1 }
            }
            best.insert(result, at: low)
            if best.count > count { best.removeLast() }
        }
        return best
    }

    /// The postings whose term starts with the bytes of `prefix`. Terms are composed (NFC, ``SearchText``), so
    /// `String`'s order is their scalars' and their UTF-8 bytes' order, and those that start with `prefix` are
    /// contiguous: both ends are found by halving (the first term not before it, then the first after those that
    /// start with it).
    static func range(of prefix: String, in postings: [Posting]) -> Range<Int> {
        let start = firstIndex(in: postings, from: 0) { $0.term >= prefix }
        let end = firstIndex(in: postings, from: start) { !$0.term.utf8.starts(with: prefix.utf8) }
        return start..<end
    }

    /// The first index from `start` where `isPast` holds, for a test false then true along `postings`.
    @inline(__always)
    static func firstIndex(in postings: [Posting], from start: Int, where isPast: (Posting) -> Bool) -> Int {
        var low = start
        var high = postings.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(postings[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Each slot's place when live slots are sorted by sort key, then id.
    static func sortOrder(_ contents: Contents) -> [Int32] {
        let live = contents.live.indices.filter { contents.live[$0] }
        let sorted = live.sorted { a, b in
            let (ka, kb) = (contents.sortKeys[a], contents.sortKeys[b])
            return ka != kb ? ka < kb : contents.ids[a] < contents.ids[b]
        }
        var order = [Int32](repeating: .max, count: contents.ids.count)
        for (place, slot) in sorted.enumerated() { order[slot] = Int32(place) }
        return order
    }
}
