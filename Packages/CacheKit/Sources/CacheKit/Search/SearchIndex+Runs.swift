import Foundation

// How a change reaches the index: its postings become a sorted run, and runs of similar size are merged.
extension SearchIndex {
    /// Applies `changes` in order: replaced and removed records retire their postings (their slot's version
    /// moves on), the new postings become one run, and runs of similar size are merged.
    static func apply(_ changes: [Change], to contents: inout Contents) {
        var added: [Posting] = []
        for change in changes {
            switch change {
            case .removeAll:
                contents = Contents()
                added = []
            case .remove(let id):
                guard let slot = contents.slots.removeValue(forKey: id) else { continue }
                contents.live[Int(slot)] = false
                contents.versions[Int(slot)] &+= 1
                contents.free.append(slot)
            case .upsert(let document):
                let slot: Int32
                if let existing = contents.slots[document.id] {
                    slot = existing
                    contents.versions[Int(slot)] &+= 1
                } else if let reused = contents.free.popLast() {
                    slot = reused
                } else {
                    slot = Int32(contents.ids.count)
                    contents.ids.append("")
                    contents.sortKeys.append("")
                    contents.live.append(false)
                    contents.versions.append(0)
                }
                contents.slots[document.id] = slot
                contents.ids[Int(slot)] = document.id
                contents.sortKeys[Int(slot)] = SearchText.fold(document.sortKey)
                contents.live[Int(slot)] = true
                let version = contents.versions[Int(slot)]
                for field in document.fields {
                    for term in field.terms {
                        added.append(Posting(term: term, slot: slot, version: version, kind: field.kind.rawValue))
                    }
                }
            }
        }
        // Postings added earlier in this batch for a record replaced or removed later in it are already retired.
        let versions = contents.versions
        added.removeAll { !isValid($0, in: versions) }
        added.sort(by: Self.precedes)
        added = withoutRepeats(added)
        if !added.isEmpty { contents.runs.append(added) }
        // A run is merged into the one before it while it is at least half that one's size: each run is then
        // more than twice the next, so there are O(log n) runs, and a merge grows a posting's run at least
        // 1.5 times, so each posting is moved O(log n) times in all.
        while contents.runs.count >= 2, contents.runs[contents.runs.count - 1].count * 2 >= contents.runs[contents.runs.count - 2].count {
            let last = contents.runs.removeLast()
            let previous = contents.runs.removeLast()
            let merged = Self.merge(previous, last, keepingValidIn: versions)
            if !merged.isEmpty { contents.runs.append(merged) }
        }
        contents.order = nil
        contents.broad = [:]
    }

    /// `sorted` with one posting per term, record and kind (a word said twice in a name counts once); a
    /// record's postings of one term are next to each other, added together and kept in order by the sort.
    private static func withoutRepeats(_ sorted: [Posting]) -> [Posting] {
        var unique: [Posting] = []
        unique.reserveCapacity(sorted.count)
        var kinds: UInt8 = 0
        for posting in sorted {
            if let last = unique.last, last.slot == posting.slot, last.term == posting.term {
                if kinds & (1 << posting.kind) != 0 { continue }
            } else {
                kinds = 0
            }
            kinds |= 1 << posting.kind
            unique.append(posting)
        }
        return unique
    }

    /// Whether `posting` belongs to its slot's current record.
    @inline(__always)
    static func isValid(_ posting: Posting, in versions: [UInt32]) -> Bool {
        posting.version == versions[Int(posting.slot)]
    }

    /// Term order: what a prefix's range needs. One comparison a step (a tie broken by slot took two for every
    /// pair of different terms, a third of a page's indexing); the sort and the merge keep ties in order.
    private static func precedes(_ a: Posting, _ b: Posting) -> Bool {
        a.term < b.term
    }

    /// The valid postings of two sorted runs, in one sorted run.
    private static func merge(_ a: [Posting], _ b: [Posting], keepingValidIn versions: [UInt32]) -> [Posting] {
        var merged: [Posting] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            let next: Posting
            if j == b.count || (i < a.count && !precedes(b[j], a[i])) {
                next = a[i]
                i += 1
            } else {
                next = b[j]
                j += 1
            }
            if isValid(next, in: versions) { merged.append(next) }
        }
        return merged
    }
}
