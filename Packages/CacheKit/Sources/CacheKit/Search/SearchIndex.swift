import Foundation
import GRDB

/// Local search over a kit's cached records: prefix search on any word, case- and
/// diacritic-insensitive ("zoe" finds "Zoë"), phone numbers by their digits whatever the formatting,
/// results ranked (a name before other text before a phone number, a whole word before a prefix, then
/// by ``SearchDocument/sortKey``) and paged.
///
/// It lives in memory, built from the kit's records when the kit opens the user's store
/// (``rebuild(_:)``, under 300 ms for 10,000 contacts) and kept in step inside the kit's write
/// transactions (``upsert(_:in:)``, ``remove(id:in:)``): a change reaches the index when, and only when,
/// its transaction commits. Why memory rather than SQL queries: `BENCHMARKS.md`, "Local search".
///
/// A committed change is applied on another thread, so the writer goes on at once (a sync asks for its next page
/// while the last one is indexed); a search, ``count`` and the statistics apply what is still waiting first, so
/// every read sees every change committed before it.
///
/// One index holds one user's records: a kit keeps one per user store and registers it as a clearing
/// participant, so logout empties it with the data it mirrors.
///
/// A word that matches a large share of the records (a first letter typed, a common domain) is ranked whole at
/// its first search after a change and kept until the next one, so type-ahead pays for it once: at most 16 such
/// words, about five bytes a record each.
///
/// ```swift
/// let index = SearchIndex(name: "notes.search")
/// index.rebuild(try store.allNotes(userId).map(\.searchDocument))   // on opening the user's store
/// try await files.database(for: owner).write { db in
///     try NoteRow(note).save(db)
///     index.upsert(note.searchDocument, in: db)                   // applied when this commits
/// }
/// let page = index.search("zoe", offset: 0, limit: 20)             // page.ids, page.total
/// ```
public final class SearchIndex: CacheClearingParticipant {
    /// One term of one record, valid while `version` is its slot's.
    struct Posting {
        var term: String
        var slot: Int32
        var version: UInt32
        var kind: UInt8
    }

    /// Everything a search reads; a search takes a copy (the arrays are shared until the next change).
    struct Contents {
        /// Runs of postings, each sorted by term, larger runs first. A change adds its postings as
        /// a new run and merges runs of similar size (dropping postings no longer valid), so a change of one
        /// record moves few postings, whatever the index holds, and a search reads a few runs.
        var runs: [[Posting]] = []
        /// Each slot's version: bumped when its record is replaced or removed, which retires its postings.
        var versions: [UInt32] = []
        var ids: [String] = []
        var sortKeys: [String] = []
        var live: [Bool] = []
        var slots: [String: Int32] = [:]
        var free: [Int32] = []
        /// Each slot's place in sort-key order, recomputed lazily after a change.
        var order: [Int32]? = []
        /// The broad terms searched since the last change, each ranked once (``Broad``).
        var broad: [String: Broad] = [:]
    }

    /// A broad term (a letter, a common domain: more postings than ``broadTermPostings``) ranked once and
    /// kept until the next change. Type-ahead asks for the same first letters again and again, and each is
    /// otherwise a pass over a large share of the index (at 100,000 contacts, most of a search's time).
    struct Broad {
        /// Each slot's best rank for the term (lower is better), or `.max` when none of its words matches.
        var ranks: [UInt8]
        /// The slots that match, best first: by rank, then sort order.
        var ranked: [Int32]
    }

    enum Change {
        case upsert(SearchDocument)
        case remove(String)
        case removeAll
    }

    /// The participant's name in reports.
    public let participantName: String
    /// A term with more postings than this is ranked once and kept until the next change (``Broad``).
    let broadTermPostings: Int
    /// The most broad terms kept at once (each up to five bytes a record); past it, those a query does not
    /// use are dropped.
    static let broadTermsKept = 16
    private let contents = Locked(Contents())
    private let pending = Locked<[ObjectIdentifier: [Change]]>([:])
    /// Changes committed and not applied yet, in commit order, and whether a thread is asked to apply them. Taken
    /// only under `contents`' lock (so two threads never apply batches out of order) or alone to append.
    private let backlog = Locked<(changes: [Change], scheduled: Bool)>(([], false))
    /// Runs the backlog's application on another thread (tests hold it back to see that reads apply it).
    private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Counters for searches to reuse (at most four, one per search running at once).
    private let scratches = Locked<[SearchScratch]>([])

    /// An empty index.
    /// - Parameter name: its name in reports (`contacts.search`).
    public convenience init(name: String) {
        self.init(name: name, broadTermPostings: 2_048)
    }

    /// An empty index whose broad terms are those with more than `broadTermPostings` postings (tests take every
    /// term as broad with 0, none with `.max`), and whose committed changes are applied by what `schedule` runs.
    init(
        name: String, broadTermPostings: Int,
        schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global(qos: .utility).async(execute: $0) }
    ) {
        participantName = name
        self.broadTermPostings = broadTermPostings
        self.schedule = schedule
    }

    /// Records indexed.
    public var count: Int { current { $0.slots.count } }

    /// Changes committed and not applied yet (tests).
    var waitingChanges: Int { backlog.withLock { $0.changes.count } }

    // MARK: Changing

    /// Replaces everything with `documents` (when the kit opens a user's store).
    public func rebuild(_ documents: [SearchDocument]) {
        var fresh = Contents()
        Self.apply(documents.map(Change.upsert), to: &fresh)
        // Changes committed and still waiting go on top (applying one the documents hold again changes nothing).
        current(from: fresh) { _ in }
    }

    /// Adds or replaces `document` when the transaction `db` is in commits; nothing happens if it
    /// rolls back. Call it inside the write that stores the record.
    public func upsert(_ document: SearchDocument, in db: Database) {
        enqueue(.upsert(document), in: db)
    }

    /// Removes the record `id` when the transaction `db` is in commits.
    public func remove(id: String, in db: Database) {
        enqueue(.remove(id), in: db)
    }

    /// Removes every record when the transaction `db` is in commits.
    public func removeAll(in db: Database) {
        enqueue(.removeAll, in: db)
    }

    /// Adds or replaces `documents` now (records stored without a transaction of their own).
    public func upsert(_ documents: [SearchDocument]) {
        change(documents.map(Change.upsert))
    }

    private func enqueue(_ change: Change, in db: Database) {
        let key = ObjectIdentifier(db)
        let first = pending.withLock { pending in
            defer { pending[key, default: []].append(change) }
            return pending[key] == nil
        }
        guard first else { return }
        db.afterNextTransaction { [self] _ in
            self.change(pending.withLock { $0.removeValue(forKey: key) } ?? [])
        } onRollback: { [self] _ in
            _ = pending.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Queues `changes` (committed) and asks another thread to apply them, unless one is asked already.
    private func change(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        let ask = backlog.withLock { backlog in
            backlog.changes += changes
            defer { backlog.scheduled = true }
            return !backlog.scheduled
        }
        if ask { schedule { [self] in applyCommittedChanges() } }
    }

    /// Applies every change committed so far, now. A search does this itself; a writer calls it to leave the index
    /// current when it returns (a sync's last page).
    public func applyCommittedChanges() {
        current { _ in }
    }

    /// `body` on the contents (replaced by `base` first, when given) with every committed change applied, under
    /// the lock.
    private func current<T>(from base: Contents? = nil, _ body: (inout Contents) -> T) -> T {
        contents.withLock { contents in
            let changes = backlog.withLock { backlog in
                defer { backlog = ([], false) }
                return backlog.changes
            }
            if let base { contents = base }
            if !changes.isEmpty { Self.apply(changes, to: &contents) }
            return body(&contents)
        }
    }

    // MARK: Searching

    /// The records matching every word of `query` (each as the prefix of some word of the record), or
    /// the phone numbers containing its digits when it reads as one, best first.
    ///
    /// - Parameters:
    ///   - query: what the user typed; an empty query matches nothing.
    ///   - offset: how many results to skip (the page's start).
    ///   - limit: the most ids returned.
    public func search(_ query: String, offset: Int = 0, limit: Int = 20) -> SearchResults {
        let queryTerms = SearchText.queryTerms(query)
        guard !queryTerms.isEmpty else { return SearchResults(ids: [], total: 0) }
        // Ranked under the lock, so that no change can come between a term's ranking and its keeping: a broad
        // term costs its pass once after each change (a few milliseconds at 100,000 records), then nothing.
        let (contents, terms) = current { contents in
            if contents.order == nil { contents.order = Self.sortOrder(contents) }
            // The fewest postings first: the first term picks the candidates, and a broad term after it is looked
            // up for each candidate instead of read whole. A record's score is the same in any order.
            let terms = queryTerms.prefix(255).map { ($0, Self.postingCount(of: $0, in: contents)) }.sorted { $0.1 < $1.1 }
            let unranked = Set(terms.filter { $0.1 > broadTermPostings && contents.broad[$0.0] == nil }.map(\.0))
            if contents.broad.count + unranked.count > Self.broadTermsKept {
                contents.broad = contents.broad.filter { kept in terms.contains { $0.0 == kept.key } }
            }
            for term in unranked { contents.broad[term] = Self.ranked(term, in: contents) }
            return (contents, terms)
        }
        let order = contents.order ?? []
        if terms.count == 1, let broad = contents.broad[terms[0].0] {
            let start = min(max(0, offset), broad.ranked.count)
            let page = broad.ranked[start...].prefix(max(0, limit))
            return SearchResults(ids: page.map { contents.ids[Int($0)] }, total: broad.ranked.count)
        }
        // Each record's counters: the query terms it matched so far and their best ranks summed. Only records
        // the first term matched are ever written: they are the candidates, zeroed again after.
        var scratch = SearchScratch.take(from: scratches, count: contents.ids.count)
        let candidates = Self.count(terms.map(\.0), in: contents, into: &scratch)
        let rounds = UInt8(terms.count)
        let results = candidates.filter { scratch.counters[Int($0)].matched == rounds }
        let wanted = min(max(0, offset), results.count) + min(max(0, limit), results.count)
        let best = Self.first(wanted, of: results) { a, b in
            let (sa, sb) = (scratch.counters[Int(a)].score, scratch.counters[Int(b)].score)
            return sa != sb ? sa < sb : order[Int(a)] < order[Int(b)]
        }
        scratch.giveBack(to: scratches, touched: candidates)
        let page = best.dropFirst(max(0, offset))
        return SearchResults(ids: page.map { contents.ids[Int($0)] }, total: results.count)
    }

    // MARK: Clearing participant

    /// Kit data.
    public var category: CacheCategory { .data }
    /// Not counted in the app-wide budget: it mirrors records held elsewhere, and goes with them.
    public var isInAppBudget: Bool { false }

    /// Empties the index (logout).
    public func clearAll() {
        contents.withLock { contents in
            backlog.withLock { $0.changes = [] }  // what was committed before the clearing goes with it
            contents = Contents()
        }
        scratches.withLock { $0.removeAll() }  // sized to the old index: its memory goes with it
    }

    /// Records are per user, not per account: nothing to do.
    public func clear(forAccountId accountId: String) {}

    /// Removes the record `key`.
    public func clear(forKey key: String) {
        change([.remove(key)])
    }

    /// Records held, and an estimate of the bytes of their terms.
    public func statistics() -> [CacheStoreStatistics] {
        let (records, bytes) = current { contents in
            (
                contents.slots.count,
                contents.runs.joined().reduce(0) { $0 + (Self.isValid($1, in: contents.versions) ? $1.term.utf8.count + 5 : 0) }
            )
        }
        return [
            CacheStoreStatistics(
                participant: participantName, category: category, counts: CacheStatistics(store: "memory", feature: participantName),
                usage: CacheStoreUsage(count: records, bytes: bytes))
        ]
    }
}
