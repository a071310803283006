import Foundation
import GRDB

/// The field's anchor for local search: SQLite FTS5 over the same folded text (names and e-mails as words,
/// each phone as the tails of its digits at least three long), with prefix indexes for one to three
/// characters, ranked by bm25 (a name weighs more than an e-mail, an e-mail more than a phone) then by name,
/// paged with the total, as the other variants answer.
struct FTS5Search {
    let queue: DatabaseQueue
    let file: URL

    init(_ contacts: [BenchContact], directory: URL) throws {
        file = directory.appendingPathComponent("fts5.sqlite")
        queue = try DatabaseQueue(path: file.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    DROP TABLE IF EXISTS contact_fts;
                    CREATE VIRTUAL TABLE contact_fts USING fts5(id UNINDEXED, sort_key UNINDEXED, name, emails, phones,
                        tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
                    """)
            let insert = try db.makeStatement(sql: "INSERT INTO contact_fts VALUES (?, ?, ?, ?, ?)")
            for contact in contacts {
                let tails = contact.phones.flatMap { phone -> [String] in
                    let digits = Array(phone.filter(\.isNumber))
                    return (0...max(0, digits.count - 3)).map { String(digits[$0...]) }
                }
                try insert.execute(arguments: [
                    contact.id, SearchTextForBench.ascii(contact.name), SearchTextForBench.ascii(contact.name),
                    contact.emails.flatMap(SearchTextForBench.words).joined(separator: " "), tails.joined(separator: " "),
                ])
            }
        }
    }

    /// Bytes on disk (the file and its journal).
    var bytesOnDisk: Int {
        ["", "-journal", "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: file.path + $0)[.size] as? Int }.reduce(0, +)
    }

    func search(_ query: String, limit: Int = 20) throws -> [String] {
        let digits = query.filter(\.isNumber)
        let isPhone = query.allSatisfy { "0123456789+()-./ ".contains($0) } && digits.count >= 3
        let match: String
        if isPhone {
            match = "phones : \"\(digits)\"*"
        } else {
            let terms = SearchTextForBench.words(query)
            guard !terms.isEmpty else { return [] }
            match = terms.map { "\"\($0)\"*" }.joined(separator: " AND ")
        }
        return try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id, COUNT(*) OVER () FROM (
                        SELECT id, sort_key, bm25(contact_fts, 0, 0, 10, 5, 1) AS rank FROM contact_fts WHERE contact_fts MATCH ?)
                    ORDER BY rank, sort_key LIMIT \(limit)
                    """, arguments: [match])
        }
    }
}
