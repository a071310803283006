import CacheKitTesting
import Foundation
import GRDB
import Testing

@testable import CacheKit

/// ``SearchIndex``: prefix search on any word without case or diacritics, phone numbers by digits,
/// ranking and pages, and changes that reach the index only when their transaction commits.
@Suite(.timeLimit(.minutes(10))) struct SearchIndexTests {
    static func contact(_ id: String, _ name: String, emails: [String] = [], phones: [String] = []) -> SearchDocument {
        SearchDocument(id: id, sortKey: name, fields: [.name(name), .text(emails), .phones(phones)])
    }

    static let people = [
        contact("1", "Zoë Martin", emails: ["zoe.martin@example.com"], phones: ["+1 (555) 010-2030"]),
        contact("2", "Martin Zobel", emails: ["mz@example.org"], phones: ["555.010.9999"]),
        contact("3", "Ana Lucía Pérez", emails: ["ana@example.com"], phones: ["+34 612 34 56 78"]),
        contact("4", "Marta Åberg", emails: ["marta.aberg@example.se"]),
        contact("5", "Bob Stone", emails: ["zorro@example.net"]),
    ]

    static func index() -> SearchIndex {
        let index = SearchIndex(name: "people")
        index.rebuild(people)
        return index
    }

    @Test func anyWordIsFoundByItsPrefixWhateverItsCaseAndDiacritics() {
        let index = Self.index()
        #expect(index.search("zoe").ids == ["1"], "zoe finds Zoë")
        #expect(index.search("ZOË").ids == ["1"])
        #expect(Set(index.search("mart").ids) == ["1", "2", "4"])
        #expect(index.search("lucia").ids == ["3"] && index.search("perez").ids == ["3"])
        #expect(index.search("aberg").ids == ["4"], "Å folds to a")
        #expect(index.search("zo ma").ids == ["2", "1"], "every word must match some word of the record")
        #expect(index.search("zoe stone").ids.isEmpty && index.search("  ").ids.isEmpty && index.search("xyz").ids.isEmpty)
    }

    /// A search's counters are kept for the next one and zeroed where it wrote: one record of a hundred
    /// at a time (zeroed one by one) or a broad query (zeroed in a sweep), the same query answers alike.
    @Test func searchesOneAfterAnotherAnswerAlikeNarrowOrBroad() {
        let index = SearchIndex(name: "many")
        index.rebuild((0..<100).map { Self.contact("c\($0)", "Name\(1_000 + $0) Common") })
        for _ in 0..<3 {
            #expect(index.search("name1005").ids == ["c5"])
            #expect(index.search("name1005 common").ids == ["c5"])
            #expect(index.search("common").total == 100)
        }
    }

    @Test func aPhoneNumberIsFoundByItsDigitsWhateverTheFormatting() {
        let index = Self.index()
        for query in ["555 010 2030", "5550102030", "+15550102030", "(555) 010-2030", "010-2030", "0102030"] {
            #expect(index.search(query).ids == ["1"], "\(query)")
        }
        #expect(Set(index.search("555-010").ids) == ["1", "2"])
        #expect(index.search("612 345").ids == ["3"] && index.search("34612345678").ids == ["3"])
        #expect(index.search("2030 555").ids.isEmpty, "a number's digits match in the order typed, not as separate words")
    }

    @Test func aNameRanksBeforeOtherTextAWholeWordBeforeAPrefixThenBySortKey() {
        let index = Self.index()
        // "zo": Martin Zobel and Zoë Martin by name (prefix), Bob Stone by e-mail only (zorro@).
        #expect(index.search("zo").ids == ["2", "1", "5"], "names first, then sort order; the e-mail match last")
        // "martin": a whole word for Zoë Martin and Martin Zobel; Marta is no match.
        #expect(index.search("martin").ids == ["2", "1"])
        // "mar" is a prefix of a name word for three: equal ranks, so by sort key (Marta, Martin Zobel, Zoë Martin).
        #expect(index.search("mar").ids == ["4", "2", "1"])
        #expect(index.search("marta").ids == ["4"])
        index.upsert([Self.contact("7", "Abel Anaïs")])
        #expect(index.search("ana").ids == ["3", "7"], "the whole word Ana before the prefix of Anaïs, though Abel sorts first")
        #expect(index.search("example").ids == ["3", "5", "4", "2", "1"], "e-mail words rank by sort key among equals")
    }

    @Test func resultsComeInPagesWithTheirTotal() {
        let index = SearchIndex(name: "many")
        index.rebuild((0..<45).map { Self.contact(String(format: "%02d", $0), String(format: "Sam %02d", $0)) })
        let first = index.search("sam", offset: 0, limit: 20)
        let last = index.search("sam", offset: 40, limit: 20)
        #expect(first.total == 45 && first.ids.count == 20 && first.ids.first == "00")
        #expect(last.ids == ["40", "41", "42", "43", "44"] && index.search("sam", offset: 60).ids.isEmpty)
    }

    @Test func aChangeReachesTheIndexOnlyWhenItsTransactionCommits() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let database = try DatabaseQueue(path: folder.url.appendingPathComponent("contacts.sqlite").path)
        try await database.write { db in try db.execute(sql: "CREATE TABLE contact (id TEXT PRIMARY KEY, name TEXT)") }
        let index = Self.index()
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await database.write { db in
                try db.execute(sql: "INSERT INTO contact VALUES ('6', 'Zoé Roux')")
                index.upsert(Self.contact("6", "Zoé Roux"), in: db)
                throw Refused()
            }
        }
        #expect(index.search("roux").ids.isEmpty, "a rolled back write never reaches the index")
        try await database.write { db in
            try db.execute(sql: "INSERT INTO contact VALUES ('6', 'Zoé Roux')")
            index.upsert(Self.contact("6", "Zoé Roux"), in: db)
            try db.execute(sql: "DELETE FROM contact WHERE id = '1'")
            index.remove(id: "1", in: db)
            index.upsert(Self.contact("2", "Martin Zimmer"), in: db)
            #expect(index.search("roux").ids.isEmpty, "not before the commit")
        }
        #expect(index.search("zo").ids == ["6", "5"] && index.search("zimmer").ids == ["2"] && index.search("zobel").ids.isEmpty)
        #expect(index.count == 5)
        try await database.write { db in index.removeAll(in: db) }
        #expect(index.count == 0 && index.search("zo").ids.isEmpty)
    }

    /// A committed change is applied on another thread, not the writer's. Until that thread runs, every read (a
    /// search, the count, the statistics) applies what waits first; a rebuild keeps it on top; a clearing drops it.
    @Test func aCommittedChangeIsAppliedOffTheWriterAndEveryReadSeesIt() async throws {
        let jobs = Locked<[@Sendable () -> Void]>([])
        let index = SearchIndex(name: "held back", broadTermPostings: 2_048) { job in jobs.withLock { $0.append(job) } }
        index.rebuild(Self.people)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let database = try DatabaseQueue(path: folder.url.appendingPathComponent("contacts.sqlite").path)
        try await database.write { db in index.upsert(Self.contact("6", "Zoé Roux"), in: db) }
        #expect(index.waitingChanges == 1 && jobs.withLock { $0.count } == 1, "the writer goes on before its change is applied")
        #expect(index.search("roux").ids == ["6"] && index.waitingChanges == 0, "a search applies what waits")
        try await database.write { db in index.remove(id: "6", in: db) }
        #expect(jobs.withLock { $0.count } == 2, "a change after a read applied the last asks for the thread again")
        #expect(index.count == 5)
        try await database.write { db in index.upsert(Self.contact("7", "Ida Roux"), in: db) }
        #expect(try await (index as any CacheClearingParticipant).statistics().first?.usage.count == 6)
        try await database.write { db in index.upsert(Self.contact("8", "Eva Roux"), in: db) }
        index.rebuild(Self.people)
        #expect(index.search("eva").ids == ["8"], "a change still waiting at a rebuild stays")
        try await database.write { db in index.upsert(Self.contact("9", "Max Roux"), in: db) }
        index.clearAll()
        #expect(index.search("max").ids.isEmpty && index.count == 0, "a clearing drops what waits")
        try await database.write { db in index.upsert(Self.contact("10", "Kim Roux"), in: db) }
        for job in jobs.withLock({ $0 }) { job() }
        #expect(index.waitingChanges == 0 && index.search("kim").ids == ["10"], "the other thread applies it")
    }

    @Test func clearingEmptiesItAndStatisticsCountItsRecords() {
        let index = Self.index()
        #expect(index.statistics().first?.usage.count == 5)
        index.clear(forKey: "5")
        #expect(index.search("bob").ids.isEmpty && index.count == 4)
        index.clearAll()
        #expect(index.search("zoe").ids.isEmpty && index.statistics().first?.usage.count == 0)
    }

    /// A page near the top is chosen in one pass, a deep one by sorting every match: both are the slice of the
    /// whole ranking (ranks by field and by whole word, then names, over 1,000 matches in random order).
    @Test func aPageIsTheSliceOfTheWholeRankingHoweverItIsChosen() {
        var random = SeededRandom(seed: 54)
        let index = SearchIndex(name: "pages")
        index.rebuild(
            (0..<1_000).shuffled(using: &random).map { number in
                let name = ["Common \(number)", "Commonwealth \(number)", "Other \(number)"][number % 3]
                return Self.contact("c\(number)", name, emails: number % 3 == 2 ? ["common@example.com"] : [])
            })
        let whole = index.search("common", limit: 1_000)
        #expect(whole.total == 1_000 && whole.ids.count == 1_000)
        #expect(whole.ids.prefix(334).allSatisfy { Int($0.dropFirst()).map { $0 % 3 == 0 } == true }, "whole names first")
        for offset in [0, 1, 19, 20, 77, 104, 105, 300, 990] {
            let page = index.search("common", offset: offset, limit: 20)
            #expect(page.ids == Array(whole.ids[offset..<min(offset + 20, 1_000)]) && page.total == 1_000, "offset \(offset)")
        }
        #expect(index.search("common", limit: .max).ids == whole.ids, "every result, whatever the limit")
        #expect(
            index.search("common", offset: .max, limit: .max).ids.isEmpty
                && index.search("common", offset: -5, limit: 3).ids == Array(whole.ids.prefix(3)))
    }

    /// One change at a time (its postings kept in runs of their own, merged as they grow) answers exactly as a
    /// brute-force scan of the same records: 2,000 random upserts, renames and removals, with reused slots,
    /// over 300 ids, checked every 50 changes on name prefixes, whole second words, diacritics and phone
    /// digits; the scan folds and splits the text itself, and most queries must find something.
    @Test func changesOneAtATimeAnswerAsABruteForceScanDoes() {
        var random = SeededRandom(seed: 39)
        let names = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Radia", "Zoë", "Ana"]
        let index = SearchIndex(name: "incremental")
        var current: [String: SearchDocument] = [:]
        var checks = 0
        var found = 0
        for step in 1...2_000 {
            let id = "c\(Int.random(in: 0..<300, using: &random))"
            if Int.random(in: 0..<4, using: &random) == 0 {
                index.clear(forKey: id)
                current[id] = nil
            } else {
                let name =
                    "\(names[Int.random(in: 0..<names.count, using: &random)]) \(names[Int.random(in: 0..<names.count, using: &random)])son"
                let document = Self.contact(id, name, phones: ["+1 555 \(1_000 + Int.random(in: 0..<9_000, using: &random))"])
                index.upsert([document])
                current[id] = document
            }
            guard step % 50 == 0 else { continue }
            #expect(index.count == current.count)
            let queries = names.map { String($0.prefix(2)) } + ["adason", "ZOË", "zoe gr", "555", "1 555 2", "55", "nobody"]
            for query in queries {
                let got = index.search(query, limit: 400)
                let want = Set(current.values.filter { BruteForce.matches($0, query) }.map(\.id))
                #expect(Set(got.ids) == want && got.total == want.count, "step \(step), query \(query)")
                checks += 1
                if !want.isEmpty { found += 1 }
            }
        }
        #expect(checks == 40 * 17)
        #expect(found >= 40 * 15, "the queries find records: \(found) of \(checks) found some")
    }

    /// A prefix is found by its bytes in composed text, wherever the sort puts the terms around it: "น" finds
    /// "นำชัย", whose first character joins the vowel after it, and "นเรศวร", which sorts after it.
    @Test func aPrefixOfAJoinedCharacterFindsItsWordInAnyRun() {
        let names = ["นำชัย", "นเรศวร", "นารี", "Zoë"]
        for broadTermPostings in [0, Int.max] {
            let rebuilt = SearchIndex(name: "rebuilt", broadTermPostings: broadTermPostings)
            rebuilt.rebuild(names.enumerated().map { Self.contact("t\($0.offset)", $0.element) })
            let oneByOne = SearchIndex(name: "one by one", broadTermPostings: broadTermPostings)
            for (offset, name) in names.enumerated() { oneByOne.upsert([Self.contact("t\(offset)", name)]) }
            for index in [rebuilt, oneByOne] {
                #expect(Set(index.search("น").ids) == ["t0", "t1", "t2"], "\(broadTermPostings)")
                #expect(index.search("นำ").ids == ["t0"] && index.search("นเ").ids == ["t1"])
                #expect(index.search("zoe").ids == ["t3"] && index.search("ZOË").ids == ["t3"])
            }
        }
    }

    /// A broad term is ranked once and kept until the next change. Indexes that take every term as broad, those
    /// past 30 postings, or none answer every query, page and total alike through 1,500 random changes, each
    /// rebuild and clearing among them checked at once, with the same queries asked again between changes (a
    /// ranking kept past a change would answer with records renamed or gone since), a query's words in either
    /// order, a query of more broad words than are kept, and pages at the extremes; the whole match is the
    /// brute-force scan's.
    @Test func broadTermsRankedOnceAnswerAsAScanThroughChanges() {
        var random = SeededRandom(seed: 63)
        let names = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Radia", "Zoë", "Ana", "Al"]
        let indexes = [0, 30, Int.max].map { SearchIndex(name: "broad past \($0)", broadTermPostings: $0) }
        var current: [String: SearchDocument] = [:]
        var checks = 0
        // Twenty-three broad words in one query: more than are kept at once.
        let many = (names.map { String($0.prefix(1)) } + names.map { String($0.prefix(2)) } + ["son", "example", "com", "555"])
            .joined(separator: " ")
        for step in 1...1_500 {
            let id = "c\(Int.random(in: 0..<200, using: &random))"
            var replaced = false
            switch Int.random(in: 0..<100, using: &random) {
            case 0:
                indexes.forEach { $0.clearAll() }
                current = [:]
                replaced = true
            case 1:
                indexes.forEach { $0.rebuild(Array(current.values)) }
                replaced = true
            case 2..<25:
                indexes.forEach { $0.clear(forKey: id) }
                current[id] = nil
            default:
                let first = names[Int.random(in: 0..<names.count, using: &random)]
                let document = Self.contact(
                    id, "\(first) \(names[Int.random(in: 0..<names.count, using: &random)])son",
                    emails: ["\(first.lowercased())@example.com"], phones: ["+1 555 \(1_000 + Int.random(in: 0..<9_000, using: &random))"])
                indexes.forEach { $0.upsert([document]) }
                current[id] = document
            }
            guard step % 25 == 0 || replaced else { continue }
            for query in ["a", "al", "ada", "e", "example", "a example", "example a", "al gr", "gr al", "555", "zo", "a a", many, "x"] {
                for (offset, limit) in [(0, 20), (5, 7), (0, 400), (-3, 4), (.max, .max), (3, .max)] {
                    let answers = indexes.map { $0.search(query, offset: offset, limit: limit) }
                    #expect(answers.allSatisfy { $0 == answers[2] }, "step \(step), \(query) [\(offset), \(limit)]: \(answers)")
                    checks += 1
                }
                let want = Set(current.values.filter { BruteForce.matches($0, query) }.map(\.id))
                let whole = indexes[0].search(query, limit: 400)
                #expect(Set(whole.ids) == want && whole.total == want.count, "step \(step), \(query)")
            }
        }
        #expect(checks >= 60 * 14 * 6)
    }
}

/// The search's promise written the slow way: every word of the query is a prefix of some word of the
/// record's folded text, or of a tail of at least three of its phone digits; a query of phone characters
/// with at least three digits is those digits.
enum BruteForce {
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    static func words(_ text: String) -> [String] {
        fold(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    static func digits(_ text: String) -> String { text.filter(\.isASCII).filter(\.isNumber) }

    static func matches(_ document: SearchDocument, _ query: String) -> Bool {
        var terms: [String] = []
        for field in document.fields {
            for value in field.values {
                if field.kind == .phone {
                    let all = Array(digits(value))
                    terms += all.count < 3 ? [String(all)] : (0...(all.count - 3)).map { String(all[$0...]) }
                } else {
                    terms += words(value)
                }
            }
        }
        let asPhone = query.allSatisfy { "0123456789+()-./ ".contains($0) } && digits(query).count >= 3
        let wanted = asPhone ? [digits(query)] : words(query)
        return !wanted.isEmpty && wanted.allSatisfy { term in terms.contains { $0.utf8.starts(with: term.utf8) } }
    }
}
