import APICore
import CacheKit
import Foundation
import GRDB
import HTTPTypes

/// One user's queued mutations in a SQLite file of their own (WAL, `synchronous=FULL`): an enqueue
/// that returned is on disk, whatever happens to the process next. Opened as every store's file is
/// (``CacheDatabase``), so two compositions over one folder wait for each other's locks.
final class MutationQueueStore: Sendable {
    let url: URL
    let database: DatabaseQueue

    /// Opens (creating) the file and migrates it.
    init(url: URL) throws {
        self.url = url
        try ProtectedFiles.createDirectory(url.deletingLastPathComponent())
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mutation (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL,
                        idempotencyKey TEXT NOT NULL UNIQUE,
                        request BLOB NOT NULL,
                        enqueuedAt DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        lastError TEXT,
                        optimistic BLOB)
                    """)
        }
        // Refusals are kept until the kit that made the change has undone and reported it, so one that came
        // while the app was not running, or before a kill, is never taken for sent.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE refusal (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL,
                        idempotencyKey TEXT NOT NULL,
                        request BLOB NOT NULL,
                        enqueuedAt DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL,
                        lastError TEXT,
                        error BLOB NOT NULL)
                    """)
        }
        // A created record's client id, and the ids the server gave such records (kept until their kit settles them).
        migrator.registerMigration("v3", migrate: Self.createRemapTable)
        migrator.registerMigration("v4", migrate: Self.keepSettledRemaps)
        database = try CacheDatabase.open(url, label: "APICore.MutationQueue", migrator: migrator, synchronous: .full)
        try ProtectedFiles.protectFile(url)
    }

    /// How many refusals one user's file keeps: past it, the oldest goes (a kit that never settles its
    /// refusals cannot grow the file without bound).
    static let maximumRefusals = 200

    /// Removes a mutation the server refused for good and keeps the refusal, in one transaction.
    func refuse(_ mutation: QueuedMutation, error: APIError) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO refusal (id, name, idempotencyKey, request, enqueuedAt, attempts, lastError, error)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    mutation.id, mutation.name, mutation.idempotencyKey, Self.encode(mutation.request),
                    mutation.enqueuedAt.timeIntervalSince1970, mutation.attempts, mutation.lastError,
                    try JSONEncoder().encode(StoredRefusal(error)),
                ])
            try db.execute(sql: "DELETE FROM mutation WHERE id = ?", arguments: [mutation.id])
            try db.execute(
                sql: "DELETE FROM refusal WHERE id NOT IN (SELECT id FROM refusal ORDER BY id DESC LIMIT ?)",
                arguments: [Self.maximumRefusals])
        }
    }

    /// The refusals not yet settled, oldest first.
    func refusals() throws -> [MutationFailure] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, name, idempotencyKey, request, enqueuedAt, attempts, lastError, error FROM refusal ORDER BY id"
            ).compactMap { row in
                guard let mutation = Self.mutation(row), let data: Data = row["error"],
                    let stored = try? JSONDecoder().decode(StoredRefusal.self, from: data)
                else { return nil }
                return MutationFailure(mutation: mutation, error: stored.error)
            }
        }
    }

    /// Forgets a refusal its kit has settled.
    func settle(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM refusal WHERE id = ?", arguments: [id]) }
    }

    /// Appends a mutation; returns it with its place in the queue.
    func append(name: String, key: String, request: QueuedRequest, at date: Date, optimistic: Data?, creates: String?) throws
        -> QueuedMutation
    {
        try database.write { db in
            // A request naming a record the server has renamed says the server's id (its kit may not have
            // renamed it yet).
            var request = request
            for row in try Row.fetchAll(db, sql: "SELECT clientId, serverId FROM remap") {
                request = request.replacingId(row["clientId"], with: row["serverId"])
            }
            try db.execute(
                sql: "INSERT INTO mutation (name, idempotencyKey, request, enqueuedAt, optimistic, creates) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [name, key, Self.encode(request), date.timeIntervalSince1970, optimistic, creates])
            return QueuedMutation(
                id: db.lastInsertedRowID, name: name, idempotencyKey: key, request: request,
                enqueuedAt: date, attempts: 0, lastError: nil, creates: creates)
        }
    }

    /// Every mutation, in order.
    func all() throws -> [QueuedMutation] {
        try database.read { db in
            try Row.fetchAll(db, sql: Self.selectInOrder)
                .compactMap(Self.mutation)
        }
    }

    /// The oldest mutation, the next to send.
    func first() throws -> QueuedMutation? {
        try database.read { db in
            try Row.fetchOne(db, sql: Self.selectInOrder + " LIMIT 1")
                .flatMap(Self.mutation)
        }
    }

    /// The optimistic write kept for a mutation, if any.
    func optimistic(of id: Int64) throws -> Data? {
        try database.read { db in try Data.fetchOne(db, sql: "SELECT optimistic FROM mutation WHERE id = ?", arguments: [id]) }
    }

    /// Records a failed attempt.
    func recordFailure(of id: Int64, reason: String) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE mutation SET attempts = attempts + 1, lastError = ? WHERE id = ?", arguments: [reason, id])
        }
    }

    /// Removes a mutation (sent, or refused for good).
    func remove(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM mutation WHERE id = ?", arguments: [id]) }
    }

    /// Closes the file and deletes it with its WAL and shared-memory files.
    func destroy() throws {
        try database.close()
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
    }

    // MARK: Encoding

    /// Every mutation's columns but its optimistic write, oldest first.
    private static let selectInOrder =
        "SELECT id, name, idempotencyKey, request, enqueuedAt, attempts, lastError, creates FROM mutation ORDER BY id"

    static func encode(_ request: QueuedRequest) -> Data {
        let json: JSONValue
        switch request {
        case .rest(let method, let path, let fields, let body):
            json = .object([
                "kind": "rest", "method": .string(method.rawValue), "path": .string(path),
                "fields": .array(fields.map { .array([.string($0.name.rawName), .string($0.value)]) }),
                "body": body.map { .string($0.base64EncodedString()) } ?? .null,
            ])
        case .graphQL(let document, let variables):
            json = .object(["kind": "graphQL", "document": .string(document), "variables": .object(variables)])
        }
        return json.serialized()
    }

    static func decode(_ data: Data) -> QueuedRequest? {
        guard case .object(let object)? = try? JSONValue.parse(data) else { return nil }
        switch object["kind"]?.stringValue {
        case "rest":
            guard let method = object["method"]?.stringValue.flatMap({ HTTPRequest.Method($0) }),
                let path = object["path"]?.stringValue, case .array(let pairs)? = object["fields"]
            else { return nil }
            var fields = HTTPFields()
            for case .array(let pair) in pairs where pair.count == 2 {
                guard let name = pair[0].stringValue.flatMap({ HTTPField.Name($0) }), let value = pair[1].stringValue else { continue }
                fields.append(HTTPField(name: name, value: value))
            }
            let body = object["body"]?.stringValue.flatMap { Data(base64Encoded: $0) }
            return .rest(method: method, path: path, headerFields: fields, body: body)
        case "graphQL":
            guard let document = object["document"]?.stringValue, case .object(let variables)? = object["variables"] else { return nil }
            return .graphQL(document: document, variables: variables)
        default:
            return nil
        }
    }

    private static func mutation(_ row: Row) -> QueuedMutation? {
        guard let request = decode(row["request"]) else { return nil }
        return QueuedMutation(
            id: row["id"], name: row["name"], idempotencyKey: row["idempotencyKey"], request: request,
            enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]), attempts: row["attempts"],
            lastError: row["lastError"], creates: row.hasColumn("creates") ? row["creates"] : nil)
    }
}
