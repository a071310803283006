import Foundation
import GRDB

extension BackendDatabase {
    static func createContacts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE contact (id TEXT NOT NULL, userId TEXT NOT NULL REFERENCES user(id), body TEXT NOT NULL,
                                      changeSeq INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (userId, id));
                CREATE INDEX contact_changes ON contact(userId, changeSeq);
                CREATE TABLE contact_owner (userId TEXT PRIMARY KEY NOT NULL REFERENCES user(id), seq INTEGER NOT NULL,
                                            circles TEXT NOT NULL, score TEXT NOT NULL);
                CREATE TABLE suggestion (id TEXT NOT NULL, userId TEXT NOT NULL REFERENCES user(id), body TEXT NOT NULL,
                                         PRIMARY KEY (userId, id));
                CREATE TABLE contact_answer (userId TEXT NOT NULL, key TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
                                             PRIMARY KEY (userId, key));
                """)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Seeds `userId`'s address book on first use: `count` deterministic contacts with thumbnails, five
    /// circles, a score with 30 days of history and a few pending suggestions.
    func ensureContacts(userId: String, count: Int) throws {
        try queue.write { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact_owner WHERE userId = ?", arguments: [userId]) == 0 else { return }
            let now = self.now()
            let statement = try db.makeStatement(sql: "INSERT INTO contact (id, userId, body, changeSeq) VALUES (?, ?, ?, 0)")
            for index in 0..<count {
                let contact = Self.seededContact(index, updatedAt: now)
                try statement.execute(arguments: [contact.id, userId, String(decoding: try Self.encoder.encode(contact), as: UTF8.self)])
            }
            let circles = ["Family", "Friends", "Work", "Neighbours", "Club"].enumerated().map { index, name in
                CircleRecord(
                    id: "circle-\(index + 1)", name: name, emoji: ["🏠", "🎉", "💼", "🌳", "⚽️"][index],
                    color: ["#E4572E", "#17BEBB", "#FFC914", "#76B041", "#2E282A"][index], type: index < 2 ? "mandatory" : "prepopulated",
                    memberCount: (count + 4 - index) / 5, accessPolicies: ["phone": "circle", "email": index == 0 ? "circle" : "nobody"])
            }
            let day = 86_400.0
            let history = (0..<30).map { offset in
                ScoreRecord.Point(
                    day: Self.dayFormatter.string(from: now.addingTimeInterval(Double(offset - 29) * day)), value: 60 + (offset * 7) % 13)
            }
            let score = ScoreRecord(
                value: history.last?.value ?? 60, quality: 0.82, position: 0.64, stability: 0.9, trust: 0.77, formulaVersion: "2.1",
                computedAt: now, history: history)
            try db.execute(
                sql: "INSERT INTO contact_owner (userId, seq, circles, score) VALUES (?, 0, ?, ?)",
                arguments: [
                    userId, String(decoding: try Self.encoder.encode(circles), as: UTF8.self),
                    String(decoding: try Self.encoder.encode(score), as: UTF8.self),
                ])
            for index in 0..<min(5, count / 2) {
                let suggestion = SuggestionRecord(
                    id: "dup-\(index + 1)", contactA: "c\(index * 2)", contactB: "c\(index * 2 + 1)", confidence: 0.9 - Double(index) * 0.1,
                    tier: index < 2 ? "auto" : "review", evidence: ["same phone", "similar name"], status: "pending")
                try db.execute(
                    sql: "INSERT INTO suggestion (id, userId, body) VALUES (?, ?, ?)",
                    arguments: [suggestion.id, userId, String(decoding: try Self.encoder.encode(suggestion), as: UTF8.self)])
            }
        }
    }

    static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    private static let firstNames = [
        "Zoë", "Ana", "Lucía", "Marta", "Martin", "José", "François", "Chloé", "Björn", "Åsa", "Noah", "Emma", "Liam", "Olivia",
        "Mateo", "Sofía", "Lukas", "Léa", "Hugo", "Inès", "Jonas", "Mia", "Elias", "Amélie", "Søren", "Yusuf", "Aisha", "Kenji",
    ]
    private static let lastNames = [
        "Martin", "García", "Müller", "Dubois", "Rossi", "Novák", "Andersson", "Nguyen", "Kowalski", "Silva", "Smith", "Pérez",
        "Schmidt", "Bernard", "Svensson", "Tanaka", "Kim", "Singh", "Haddad", "Brennan", "Åberg", "Roux", "Lefèvre", "Moreau",
    ]

    /// Contact `index` of a seeded address book (`c<index>`), the same for every user and every run.
    static func seededContact(_ index: Int, updatedAt: Date) -> ContactRecord {
        let first = firstNames[index % firstNames.count]
        let last = lastNames[(index / firstNames.count + index * 7) % lastNames.count]
        let plain = "\(first).\(last)".folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var phones = [String(format: "+1 (%03d) %03d-%04d", 200 + index % 700, index % 1_000, (index * 37) % 10_000)]
        if index % 3 == 0 {
            phones.append(String(format: "06 %02d %02d %02d %02d", index % 100, (index / 7) % 100, (index / 3) % 100, index % 97))
        }
        return ContactRecord(
            id: "c\(index)", displayName: "\(first) \(last)", phones: phones, emails: ["\(plain)\(index)@example.com"],
            photoPath: index % 10 == 9 ? nil : "/avatars/c\(index).png", circles: ["circle-\(index % 5 + 1)"],
            profileClass: ["person", "business", "family"][index % 3], enrichmentBadges: index % 4 == 0 ? ["verified"] : [],
            updatedAt: updatedAt, deleted: nil)
    }

    /// A page of the user's live contacts in id order, after `cursor` (an id), and the user's change counter.
    func contacts(userId: String, after cursor: String?, limit: Int) throws -> (contacts: [ContactRecord], more: Bool, seq: Int) {
        try queue.read { db in
            let rows = try String.fetchAll(
                db,
                sql: "SELECT body FROM contact WHERE userId = ? AND deleted = 0 AND id > ? ORDER BY id LIMIT ?",
                arguments: [userId, cursor ?? "", limit + 1])
            let seq = try Int.fetchOne(db, sql: "SELECT seq FROM contact_owner WHERE userId = ?", arguments: [userId]) ?? 0
            return (
                try rows.prefix(limit).map { try Self.decoder.decode(ContactRecord.self, from: Data($0.utf8)) }, rows.count > limit, seq
            )
        }
    }

    /// What changed after `since` (a change counter), in change order after `cursor`, deletions included.
    func contactChanges(userId: String, since: Int, after cursor: Int?, limit: Int) throws -> (
        contacts: [ContactRecord], more: Bool, last: Int?, seq: Int
    ) {
        try queue.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, body, changeSeq, deleted FROM contact WHERE userId = ? AND changeSeq > ? ORDER BY changeSeq LIMIT ?",
                arguments: [userId, max(since, cursor ?? since), limit + 1])
            let seq = try Int.fetchOne(db, sql: "SELECT seq FROM contact_owner WHERE userId = ?", arguments: [userId]) ?? 0
            let page = try rows.prefix(limit).map { row -> ContactRecord in
                if row["deleted"] as Int != 0 {
                    return ContactRecord(
                        id: row["id"], displayName: "", phones: [], emails: [], photoPath: nil, circles: [], profileClass: "",
                        enrichmentBadges: [], updatedAt: Date(timeIntervalSince1970: 0), deleted: true)
                }
                return try Self.decoder.decode(ContactRecord.self, from: Data((row["body"] as String).utf8))
            }
            return (page, rows.count > limit, rows.prefix(limit).last?["changeSeq"], seq)
        }
    }

    /// One live contact.
    func contact(userId: String, id: String) throws -> ContactRecord? {
        try queue.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM contact WHERE userId = ? AND id = ? AND deleted = 0", arguments: [userId, id])
                .map { try Self.decoder.decode(ContactRecord.self, from: Data($0.utf8)) }
        }
    }

    /// The user's circles and score.
    func circlesAndScore(userId: String) throws -> (circles: [CircleRecord], score: ScoreRecord)? {
        try queue.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT circles, score FROM contact_owner WHERE userId = ?", arguments: [userId])
            else {
                return nil
            }
            return (
                try Self.decoder.decode([CircleRecord].self, from: Data((row["circles"] as String).utf8)),
                try Self.decoder.decode(ScoreRecord.self, from: Data((row["score"] as String).utf8))
            )
        }
    }

    /// The user's suggestions with `status`.
    func suggestions(userId: String, status: String) throws -> [SuggestionRecord] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM suggestion WHERE userId = ? ORDER BY id", arguments: [userId])
                .map { try Self.decoder.decode(SuggestionRecord.self, from: Data($0.utf8)) }
                .filter { $0.status == status }
        }
    }

    /// Applies a change once per idempotency key: a repeated key with the same request (`fingerprint`) gets
    /// the first answer and changes nothing; with another request, 422 and nothing changes. `change` runs
    /// in the write transaction and returns the status and body to answer.
    func changeContacts(
        userId: String, idempotencyKey: String?, fingerprint: String?,
        _ change: (Database, _ nextSeq: () throws -> Int) throws -> (status: Int, body: Data)
    ) throws -> StoredAnswer {
        try queue.write { db in
            if let idempotencyKey,
                let row = try Row.fetchOne(
                    db, sql: "SELECT status, body, fingerprint FROM contact_answer WHERE userId = ? AND key = ?",
                    arguments: [userId, idempotencyKey])
            {
                guard Self.sameRequest(row["fingerprint"], fingerprint) else {
                    return StoredAnswer(status: 422, body: IdempotencyFingerprint<BackendContext>.reused(), replayed: false)
                }
                return StoredAnswer(status: row["status"], body: row["body"], replayed: true)
            }
            let now = self.now()
            let nextSeq = {
                try db.execute(sql: "UPDATE contact_owner SET seq = seq + 1 WHERE userId = ?", arguments: [userId])
                let seq = try Int.fetchOne(db, sql: "SELECT seq FROM contact_owner WHERE userId = ?", arguments: [userId]) ?? 0
                try Self.logChange(db, userId: userId, seq: seq, at: now)
                return seq
            }
            let answer = try change(db, nextSeq)
            if let idempotencyKey, (200..<300).contains(answer.status) {
                try db.execute(
                    sql: "INSERT INTO contact_answer (userId, key, status, body, fingerprint) VALUES (?, ?, ?, ?, ?)",
                    arguments: [userId, idempotencyKey, answer.status, answer.body, fingerprint])
            }
            return StoredAnswer(status: answer.status, body: answer.body, replayed: false)
        }
    }

    /// Changes a contact with `edit` (and stamps the change), or deletes it; `nil` when it does not exist.
    static func editContact(
        _ db: Database, userId: String, id: String, delete: Bool, seq: () throws -> Int, now: Date,
        _ edit: (inout ContactRecord) -> Void = { _ in }
    ) throws -> ContactRecord? {
        guard
            let body = try String.fetchOne(
                db, sql: "SELECT body FROM contact WHERE userId = ? AND id = ? AND deleted = 0", arguments: [userId, id])
        else {
            return nil
        }
        var contact = try decoder.decode(ContactRecord.self, from: Data(body.utf8))
        edit(&contact)
        contact.updatedAt = now
        try db.execute(
            sql: "UPDATE contact SET body = ?, changeSeq = ?, deleted = ? WHERE userId = ? AND id = ?",
            arguments: [String(decoding: try encoder.encode(contact), as: UTF8.self), try seq(), delete ? 1 : 0, userId, id])
        return contact
    }

    /// Marks a pending suggestion `status`; `nil` when it does not exist.
    static func settleSuggestion(_ db: Database, userId: String, id: String, status: String) throws -> SuggestionRecord? {
        guard let body = try String.fetchOne(db, sql: "SELECT body FROM suggestion WHERE userId = ? AND id = ?", arguments: [userId, id])
        else {
            return nil
        }
        var suggestion = try decoder.decode(SuggestionRecord.self, from: Data(body.utf8))
        suggestion.status = status
        try db.execute(
            sql: "UPDATE suggestion SET body = ? WHERE userId = ? AND id = ?",
            arguments: [String(decoding: try encoder.encode(suggestion), as: UTF8.self), userId, id])
        return suggestion
    }
}
