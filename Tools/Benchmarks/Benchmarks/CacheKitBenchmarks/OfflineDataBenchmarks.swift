import Benchmark
import CacheKit
import Foundation
import GRDB

// The core for large offline data, side by side in one run:
// - the image cache's storage: SQLite blobs (ImageCache, on DiskStore) against one file per image, for
//   10 KB thumbnails and 20,000 of them: a read, a write, and evicting the least recently used 10%;
// - local search over 10,000 contacts: SearchIndex (in memory) against a term table queried in SQL,
//   and a linear scan of the contacts (the baseline), per query and to build.

let imageCount = 20_000
let imageBytes = 10 * 1_024
let imageKeys = (0..<imageCount).map { "https://cdn.example.com/avatars/\($0).png" }

/// A 10 KB thumbnail, a whole PNG frame (the signature, an `IHDR` chunk's head, padding, `IEND`): the cache
/// refuses a frame cut short.
func thumbnail(_ index: Int) -> Data {
    var data = Data(ImageFormat.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8))
    data.append(Data(repeating: UInt8(truncatingIfNeeded: index), count: imageBytes - 28))
    data.append(contentsOf: ImageFormat.pngEnd)
    return data
}

func imageFile(_ directory: URL, _ index: Int) -> URL {
    directory.appendingPathComponent("\(index).png")
}

/// An image cache holding all 20,000 thumbnails (the limit above them: no eviction while filling).
func filledImageCache(_ name: String) async throws -> ImageCache {
    let cache = ImageCache(configuration: .init(directory: temporaryDirectory(name), byteLimit: 400 * 1024 * 1024))
    for index in 0..<imageCount {
        _ = try await cache.image(forKey: imageKeys[index], user: "u1") { thumbnail(index) }
    }
    return cache
}

/// A folder of 20,000 thumbnail files, written as a file-per-image cache writes them (atomically).
func filledImageFolder(_ name: String) throws -> URL {
    let directory = temporaryDirectory(name)
    for index in 0..<imageCount { try thumbnail(index).write(to: imageFile(directory, index), options: .atomic) }
    return directory
}

// MARK: Contacts to search

struct BenchContact {
    var id: String
    var name: String
    var emails: [String]
    var phones: [String]

    var document: SearchDocument {
        SearchDocument(id: id, sortKey: name, fields: [.name(name), .text(emails), .phones(phones)])
    }
}

let firstNames = [
    "Zoë", "Ana", "Lucía", "Marta", "Martin", "José", "François", "Chloé", "Björn", "Åsa", "Noah", "Emma", "Liam", "Olivia",
    "Mateo", "Sofía", "Lukas", "Léa", "Hugo", "Inès", "Jonas", "Mia", "Elias", "Zoe", "Amélie", "Søren", "Nikolai", "Yusuf",
    "Aisha", "Kenji", "Mei", "Ravi", "Priya", "Omar", "Fatima", "Diego", "Camila", "Pierre", "Jürgen", "Éloïse",
]
let lastNames = [
    "Martin", "García", "Müller", "Dubois", "Rossi", "Novák", "Andersson", "Nguyen", "Kowalski", "Silva", "Smith", "Jones",
    "Pérez", "López", "Schmidt", "Bernard", "Ferrari", "Svensson", "Tanaka", "Kim", "Singh", "Haddad", "O'Brien", "Brennan",
    "Åberg", "Østergaard", "Çelik", "Zobel", "Roux", "Lefèvre", "Moreau", "Fournier", "Girard", "Bonnet", "Dupont", "Lambert",
    "Fontaine", "Rousseau", "Vincent", "Muller", "Leroy", "Morel", "Faure", "André", "Mercier", "Blanc", "Guérin", "Boyer",
]

/// 10,000 deterministic contacts: names with and without diacritics, one or two e-mails, one or two phones.
let benchContacts: [BenchContact] = (0..<10_000).map(benchContact)

/// The `index`th of the deterministic contacts.
func benchContact(_ index: Int) -> BenchContact {
    let first = firstNames[index % firstNames.count]
    let last = lastNames[(index / firstNames.count + index * 7) % lastNames.count]
    let plain = SearchTextForBench.ascii("\(first).\(last)")
    var phones = [String(format: "+1 (%03d) %03d-%04d", 200 + index % 700, index % 1_000, (index * 37) % 10_000)]
    if index % 3 == 0 { phones.append(String(format: "06 %02d %02d %02d %02d", index % 100, (index / 7) % 100, (index / 3) % 100, index % 97)) }
    var emails = ["\(plain)\(index)@example.com"]
    if index % 4 == 0 { emails.append("\(plain.prefix(3))@work.example.org") }
    return BenchContact(id: String(index), name: "\(first) \(last)", emails: emails, phones: phones)
}

/// What people type: one, two and three letters, whole names, two words, diacritics, e-mail parts, digits.
let searchQueries = [
    "a", "m", "z", "é", "ma", "zo", "lu", "bj", "mar", "zoe", "zoë", "luc", "fran", "martin", "garcia", "müller", "muller",
    "ana g", "zoe mar", "lucia perez", "jose", "aberg", "oster", "celik", "o'brien", "example", "work", "chloe.d",
    "555", "200", "(212) 4", "06 12", "+1 (300) 101", "4567", "xyz", "emma smith", "priya singh", "kenji tanaka", "léa", "lea",
]

enum SearchTextForBench {
    static func ascii(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).replacingOccurrences(of: "'", with: "")
    }

    static func words(_ text: String) -> [String] {
        ascii(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }
}

// MARK: The alternatives to SearchIndex

/// The linear scan (baseline): the contacts' words folded once, each query checks every contact.
struct LinearScan {
    struct Row {
        var id: String
        var sortKey: String
        var words: [(String, Int)]
    }

    let rows: [Row]

    init(_ contacts: [BenchContact]) {
        rows = contacts.map { contact in
            var words = SearchTextForBench.words(contact.name).map { ($0, 0) }
            words += contact.emails.flatMap(SearchTextForBench.words).map { ($0, 1) }
            let digits = contact.phones.map { String($0.filter(\.isNumber)) }
            words += digits.map { ($0, 2) }
            return Row(id: contact.id, sortKey: SearchTextForBench.ascii(contact.name), words: words)
        }
    }

    func search(_ query: String, limit: Int = 20) -> [String] {
        let digits = query.filter(\.isNumber)
        let isPhone = query.allSatisfy { "0123456789+()-./ ".contains($0) } && digits.count >= 3
        let terms = isPhone ? [digits] : SearchTextForBench.words(query)
        guard !terms.isEmpty else { return [] }
        var hits: [(score: Int, row: Row)] = []
        for row in rows {
            var score = 0
            var all = true
            for term in terms {
                var best = Int.max
                for (word, kind) in row.words {
                    let match = kind == 2 ? word.contains(term) : word.hasPrefix(term)
                    if match { best = min(best, kind * 2 + (word == term ? 0 : 1)) }
                }
                if best == Int.max {
                    all = false
                    break
                }
                score += best
            }
            if all { hits.append((score, row)) }
        }
        hits.sort { $0.score != $1.score ? $0.score < $1.score : $0.row.sortKey < $1.row.sortKey }
        return hits.prefix(limit).map(\.row.id)
    }
}

/// The SQL alternative: a term table (term, id, kind) with a B-tree on term, ranked and paged in one query.
struct SQLTermTable {
    let queue: DatabaseQueue

    init(_ contacts: [BenchContact], directory: URL) throws {
        queue = try DatabaseQueue(path: directory.appendingPathComponent("search.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS contact (id TEXT PRIMARY KEY, sort_key TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS term (term TEXT NOT NULL, id TEXT NOT NULL, kind INTEGER NOT NULL,
                        PRIMARY KEY (term, id, kind)) WITHOUT ROWID;
                    DELETE FROM contact; DELETE FROM term;
                    """)
            let insertContact = try db.makeStatement(sql: "INSERT INTO contact VALUES (?, ?)")
            let insertTerm = try db.makeStatement(sql: "INSERT OR IGNORE INTO term VALUES (?, ?, ?)")
            for contact in contacts {
                try insertContact.execute(arguments: [contact.id, SearchTextForBench.ascii(contact.name)])
                for word in SearchTextForBench.words(contact.name) { try insertTerm.execute(arguments: [word, contact.id, 0]) }
                for word in contact.emails.flatMap(SearchTextForBench.words) { try insertTerm.execute(arguments: [word, contact.id, 1]) }
                for phone in contact.phones {
                    let digits = Array(phone.filter(\.isNumber))
                    for start in 0...max(0, digits.count - 3) { try insertTerm.execute(arguments: [String(digits[start...]), contact.id, 2]) }
                }
            }
        }
    }

    func search(_ query: String, limit: Int = 20) throws -> [String] {
        let digits = query.filter(\.isNumber)
        let isPhone = query.allSatisfy { "0123456789+()-./ ".contains($0) } && digits.count >= 3
        let terms = isPhone ? [digits] : SearchTextForBench.words(query)
        guard !terms.isEmpty else { return [] }
        var arguments: [any DatabaseValueConvertible] = []
        var joins: [String] = []
        for (index, term) in terms.enumerated() {
            joins.append(
                "(SELECT id, MIN(kind * 2 + (term <> ?)) AS r FROM term WHERE term >= ? AND term < ? GROUP BY id) t\(index)"
                    + (index == 0 ? "" : " USING (id)"))
            arguments += [term, term, term + "\u{10FFFF}"]
        }
        let score = terms.indices.map { "t\($0).r" }.joined(separator: " + ")
        let sql = "SELECT id, COUNT(*) OVER () FROM " + joins.joined(separator: " JOIN ")
            + " JOIN contact USING (id) ORDER BY \(score), contact.sort_key LIMIT \(limit)"
        return try queue.read { db in try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
    }
}

func offlineDataBenchmarks() {
    let perOperation = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 20_000)
    let eviction = Benchmark.Configuration(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(120), maxIterations: 3)

    // MARK: Image storage: SQLite blobs against one file per image (10 KB, 20,000 images)

    Benchmark("Images get 10 KB of 20k: ImageCache, SQLite blobs", configuration: perOperation) { (benchmark: Benchmark, cache: ImageCache) in
        for index in benchmark.scaledIterations {
            blackHole(cache.image(forKey: imageKeys[(index &* 7_919) % imageCount], user: "u1"))
        }
    } setup: {
        try await filledImageCache("imageget")
    }

    Benchmark("Images get 10 KB of 20k: file per image (alternative)", configuration: perOperation) { (benchmark: Benchmark, directory: URL) in
        for index in benchmark.scaledIterations {
            blackHole(try Data(contentsOf: imageFile(directory, (index &* 7_919) % imageCount)))
        }
    } setup: {
        try filledImageFolder("fileget")
    }

    Benchmark("Images put 10 KB into 20k: ImageCache, SQLite blobs", configuration: perOperation) { (benchmark: Benchmark, cache: ImageCache) in
        for index in benchmark.scaledIterations {
            let fresh = imageCount + index
            _ = try await cache.image(forKey: "new-\(fresh)", user: "u1") { thumbnail(fresh) }
        }
    } setup: {
        try await filledImageCache("imageput")
    }

    Benchmark("Images put 10 KB into 20k: file per image, atomic (alternative)", configuration: perOperation) { (benchmark: Benchmark, directory: URL) in
        for index in benchmark.scaledIterations {
            try thumbnail(index).write(to: imageFile(directory, imageCount + index), options: .atomic)
        }
    } setup: {
        try filledImageFolder("fileput")
    }

    Benchmark("Images evict 10% of 20k: ImageCache, SQLite blobs", configuration: eviction) { benchmark in
        let cache = try await filledImageCache("imageevict")
        let bytes = try cache.store.usage().bytes
        benchmark.startMeasurement()
        let evicted = try cache.store.trim(toBytes: bytes - bytes / 10)
        benchmark.stopMeasurement()
        precondition(evicted >= imageCount / 10)
        try cache.clearAll()
    }

    Benchmark("Images evict 10% of 20k: file per image, by modification date (alternative)", configuration: eviction) { benchmark in
        let directory = try filledImageFolder("fileevict")
        benchmark.startMeasurement()
        // With no index, the least recently used files are found by their dates: list, stat, sort, delete.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let dated = try names.map { name in
            (name, try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.modificationDate] as? Date ?? .distantPast)
        }
        for (name, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(names.count / 10) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        benchmark.stopMeasurement()
        try FileManager.default.removeItem(at: directory)
    }

    // MARK: Local search over 10,000 contacts

    let documents = benchContacts.map(\.document)

    // A broad word (a letter, a common domain) is ranked at its first search after a change, then kept: each
    // iteration changes one record first (not measured), so every search pays for its words' ranking.
    for count in [10_000, 100_000] {
        Benchmark(
            "Search \(count / 1_000)k contacts, the first query after a change: SearchIndex, in memory",
            configuration: .init(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 2_000)
        ) { (benchmark: Benchmark, state: (SearchIndex, [SearchDocument])) in
            let (index, all) = state
            let iteration = benchmark.currentIteration
            index.upsert([all[(iteration * 7_919) % all.count]])
            benchmark.startMeasurement()
            blackHole(index.search(searchQueries[iteration % searchQueries.count], limit: 20))
            benchmark.stopMeasurement()
        } setup: {
            let all = count == benchContacts.count ? documents : (0..<count).map { benchContact($0).document }
            let index = SearchIndex(name: "contacts")
            index.rebuild(all)
            return (index, all)
        }
    }

    Benchmark("Search 100k contacts, one query: SearchIndex, in memory", configuration: perOperation) { (benchmark: Benchmark, index: SearchIndex) in
        for iteration in benchmark.scaledIterations {
            blackHole(index.search(searchQueries[iteration % searchQueries.count], limit: 20))
        }
    } setup: {
        let index = SearchIndex(name: "contacts")
        index.rebuild((0..<100_000).map { benchContact($0).document })
        return index
    }

    Benchmark("Search 10k contacts, one query: SearchIndex, in memory", configuration: perOperation) { (benchmark: Benchmark, index: SearchIndex) in
        for iteration in benchmark.scaledIterations {
            blackHole(index.search(searchQueries[iteration % searchQueries.count], limit: 20))
        }
    } setup: {
        let index = SearchIndex(name: "contacts")
        index.rebuild(documents)
        return index
    }

    Benchmark("Search 10k contacts, one query: SQL term table (alternative)", configuration: perOperation) { (benchmark: Benchmark, table: SQLTermTable) in
        for iteration in benchmark.scaledIterations {
            blackHole(try table.search(searchQueries[iteration % searchQueries.count]))
        }
    } setup: {
        try SQLTermTable(benchContacts, directory: temporaryDirectory("sqlsearch"))
    }

    Benchmark("Search 10k contacts, one query: SQLite FTS5 (alternative)", configuration: perOperation) { (benchmark: Benchmark, fts: FTS5Search) in
        for iteration in benchmark.scaledIterations {
            blackHole(try fts.search(searchQueries[iteration % searchQueries.count]))
        }
    } setup: {
        try FTS5Search(benchContacts, directory: temporaryDirectory("fts5search"))
    }

    Benchmark("Search 10k contacts, one query: linear scan (baseline)", configuration: perOperation) { (benchmark: Benchmark, scan: LinearScan) in
        for iteration in benchmark.scaledIterations {
            blackHole(scan.search(searchQueries[iteration % searchQueries.count]))
        }
    } setup: {
        LinearScan(benchContacts)
    }

    let build = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 10)

    Benchmark("Search index build, 10k contacts: SearchIndex, in memory", configuration: build) { benchmark in
        let index = SearchIndex(name: "contacts")
        benchmark.startMeasurement()
        index.rebuild(documents)
        benchmark.stopMeasurement()
        blackHole(index)
    }

    Benchmark("Search index build, 10k contacts: SQL term table (alternative)", configuration: build) { benchmark in
        let directory = temporaryDirectory("sqlbuild")
        benchmark.startMeasurement()
        blackHole(try SQLTermTable(benchContacts, directory: directory))
        benchmark.stopMeasurement()
        try FileManager.default.removeItem(at: directory)
    }

    let disk = BenchmarkMetric.custom("bytes on disk (KB)", polarity: .prefersSmaller, useScalingFactor: false)
    let buildWithDisk = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, disk], scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 10)
    Benchmark("Search index build, 10k contacts: SQLite FTS5 (alternative)", configuration: buildWithDisk) { benchmark in
        let directory = temporaryDirectory("fts5build")
        benchmark.startMeasurement()
        let fts = try FTS5Search(benchContacts, directory: directory)
        benchmark.stopMeasurement()
        benchmark.measurement(disk, fts.bytesOnDisk / 1_024)
        try FileManager.default.removeItem(at: directory)
    }

    Benchmark("Search index build, 10k contacts: linear scan's folded words (baseline)", configuration: build) { benchmark in
        benchmark.startMeasurement()
        blackHole(LinearScan(benchContacts))
        benchmark.stopMeasurement()
    }
}
