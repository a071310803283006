import Foundation
import GRDB

// The address book's change log keeps 30 days, and the score is recomputed once a day.
extension BackendDatabase {
    /// How long the change log keeps a change: a changes token older than that may miss a deletion the
    /// server has forgotten, so it is refused (`INVALID_CURSOR`) and the device syncs in full.
    static let changeLogRetention: TimeInterval = 30 * 86_400

    static func createContactLog(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE contact_log (userId TEXT NOT NULL, seq INTEGER NOT NULL, at DOUBLE NOT NULL, PRIMARY KEY (userId, seq));
                """)
    }

    /// Notes when the change `seq` happened.
    static func logChange(_ db: Database, userId: String, seq: Int, at date: Date) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO contact_log (userId, seq, at) VALUES (?, ?, ?)",
            arguments: [userId, seq, date.timeIntervalSince1970])
    }

    /// Forgets the changes older than the retention (the deletions among them with them), and says whether a
    /// changes token `since` still sees every change after it.
    func changesTokenIsKept(userId: String, since: Int) throws -> Bool {
        let horizon = now().addingTimeInterval(-Self.changeLogRetention).timeIntervalSince1970
        return try queue.write { db in
            guard
                let forgotten = try Int.fetchOne(
                    db, sql: "SELECT MAX(seq) FROM contact_log WHERE userId = ? AND at < ?", arguments: [userId, horizon])
            else { return true }
            try db.execute(
                sql: "DELETE FROM contact WHERE userId = ? AND deleted = 1 AND changeSeq <= ?", arguments: [userId, forgotten])
            try db.execute(sql: "DELETE FROM contact_log WHERE userId = ? AND seq < ?", arguments: [userId, forgotten])
            return since >= forgotten
        }
    }

    /// Recomputes the user's score once a day by the server's clock: `computedAt` moves to now, and the
    /// history gains a point for each day since, keeping the last 30.
    func recomputeScoreIfDue(userId: String) throws {
        let now = self.now()
        try queue.write { db in
            guard let body = try String.fetchOne(db, sql: "SELECT score FROM contact_owner WHERE userId = ?", arguments: [userId]) else {
                return
            }
            var score = try Self.decoder.decode(ScoreRecord.self, from: Data(body.utf8))
            guard now.timeIntervalSince(score.computedAt) >= 86_400 else { return }
            // A point for each calendar day after the history's last, through today (at most 30).
            let last = score.history.last.flatMap { Self.dayFormatter.date(from: $0.day) } ?? score.computedAt
            let days = Int(now.timeIntervalSince(last) / 86_400)
            for day in max(1, days - 29)...max(1, days) {
                let date = last.addingTimeInterval(Double(day) * 86_400)
                let value = 55 + Int(date.timeIntervalSince1970 / 86_400) % 23
                score.history.append(ScoreRecord.Point(day: Self.dayFormatter.string(from: date), value: value))
            }
            score.history = Array(score.history.suffix(30))
            score.value = score.history.last?.value ?? score.value
            score.computedAt = now
            try db.execute(
                sql: "UPDATE contact_owner SET score = ? WHERE userId = ?",
                arguments: [String(decoding: try Self.encoder.encode(score), as: UTF8.self), userId])
        }
    }
}
