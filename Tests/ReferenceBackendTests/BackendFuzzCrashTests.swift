import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// A request fuzzer for the backend (security review three): seeded random requests, every route's paths with
/// hostile ids, query values, bodies and header sizes, signed in as one of three users, a stranger or a forged
/// token. The server runs in a child process (this test binary, filtered to ``childFuzzesTheBackend()``), so a
/// trap ends the child, not the suite, and the parent names the request that killed it. The server must never
/// die, never answer 5xx, and never answer one user with another's data (each user's secrets, planted first,
/// are looked for in every answer to the others).
///
/// `MIB_FUZZ_REQUESTS` sets how many (3,000 by default, about 16 s), `MIB_FUZZ_MINUTES` a bound in time (the long
/// run: `MIB_FUZZ_REQUESTS=1000000 MIB_FUZZ_MINUTES=10`),
/// `MIB_FUZZ_SEED` the seed. A failure prints its seed, the request's number and the request.
@Suite(.timeLimit(.minutes(20))) struct BackendFuzzCrashTests {
    static let childVariable = "MIB_FUZZ_CHILD"
    static let environment = ProcessInfo.processInfo.environment
    static let requests = Int(environment["MIB_FUZZ_REQUESTS"] ?? "") ?? 3_000
    static let seed = UInt64(environment["MIB_FUZZ_SEED"] ?? "") ?? 1
    /// A bound in time as well, for the long run: the child stops sending at it.
    static let minutes = Int(environment["MIB_FUZZ_MINUTES"] ?? "")

    @Test(.enabled(if: environment[childVariable] == nil)) func theBackendSurvivesSeededHostileRequests() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try CrashChild.start(test: "childFuzzesTheBackend", environment: [Self.childVariable: directory.url.path])
        defer { if child.process.isRunning { child.process.send(SIGKILL) } }
        let bound = Self.minutes.map { Duration.seconds($0 * 60 + 120) } ?? .seconds(1_140)
        try await waitUntil("the fuzzer to send \(Self.requests) requests", timeout: bound) { !child.process.isRunning }
        let ended = await child.process.waitUntilExit()
        func read(_ name: String) -> String {
            (try? String(contentsOf: directory.url.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        let summary = read("summary.txt")
        #expect(!summary.isEmpty, "the server died (\(ended)), seed \(Self.seed), at: \(read("last-request.txt"))")
        let problems = read("problems.txt")
        #expect(problems.isEmpty, "seed \(Self.seed):\n\(problems)")
        print("backend fuzzer, seed \(Self.seed): \(summary)")
    }

    /// The leak check's positive control: another user's secret in an answer is reported, the user's own, or one
    /// the request itself named, is not.
    @Test func theLeakCheckCatchesAnotherUsersSecret() {
        let secrets = [["secret-0-1", "alice@example.com"], ["secret-1-1", "bob@example.com"]]
        let line = "#1 user 0 GET /contacts/c1 body -"
        #expect(BackendFuzzer.leaks(in: Data(#"{"data":{"displayName":"secret-1-1"}}"#.utf8), to: 0, of: secrets, for: line).count == 1)
        #expect(BackendFuzzer.leaks(in: Data(#"{"email":"bob@example.com"}"#.utf8), to: 0, of: secrets, for: line).count == 1)
        #expect(BackendFuzzer.leaks(in: Data(#"{"displayName":"secret-0-1"}"#.utf8), to: 0, of: secrets, for: line).isEmpty)
        let named = "#2 user 0 GET /contacts/secret-1-1-c body -"
        #expect(BackendFuzzer.leaks(in: Data(#"{"error":"no such contact secret-1-1-c"}"#.utf8), to: 0, of: secrets, for: named).isEmpty)
    }

    /// Only in the child: the backend in this process, the requests against it over HTTP.
    @Test(.enabled(if: environment[childVariable] != nil, "runs only as the fuzzer's child"))
    func childFuzzesTheBackend() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let directory = URL(fileURLWithPath: path)
        try await withBackend(5, authRateLimits: nil, contactCount: 12) { fixture in
            var fuzzer = try await BackendFuzzer(fixture: fixture, seed: Self.seed, log: directory)
            try await fuzzer.run(Self.requests, until: Self.minutes.map { ContinuousClock.now + .seconds($0 * 60) })
            try Data(fuzzer.problems.joined(separator: "\n").utf8).write(to: directory.appendingPathComponent("problems.txt"))
            try Data(fuzzer.summary.utf8).write(to: directory.appendingPathComponent("summary.txt"))
        }
    }
}

/// The fuzzer itself: the users, their planted secrets, and the requests.
struct BackendFuzzer {
    let fixture: BackendFixture
    let log: URL
    var random: SeededRandom
    /// Each user's token and the secrets only their data holds.
    var users: [(token: String, secrets: [String])] = []
    var problems: [String] = []
    var statuses: [Int: Int] = [:]
    /// The ids of every user's planted records: half the ids sent (another user's id is the classic attack).
    var planted: [String] = []

    /// Every route, with `:name` where the fuzzer puts a hostile value.
    static let routes = [
        "GET /contacts", "GET /contacts/changes", "GET /contacts/summary", "GET /contacts/:id", "GET /contacts/:id/enrichment",
        "PATCH /contacts/:id", "DELETE /contacts/:id", "POST /contacts", "POST /contacts/import", "GET /circles", "POST /circles",
        "PATCH /circles/:id", "DELETE /circles/:id", "PUT /circles/:id/members/:id", "DELETE /circles/:id/members/:id",
        "GET /score", "GET /suggestions", "POST /suggestions/:id/:id", "PUT /profile/active", "GET /disputes", "POST /disputes",
        "POST /premium/subscribe", "GET /chat-history/threads", "POST /chat-history/threads", "GET /chat-history/threads/:id/messages",
        "POST /chat-history/threads/:id/messages", "DELETE /chat-history/threads/:id", "GET /todays-prediction",
        "GET /astrodata/:id", "POST /predict/ask", "POST /compatibility/match", "GET /subscription/profile",
        "GET /api/funnels/catalog", "GET /api/funnels/catalog/:id", "GET /api/funnels/:id/definition", "GET /api/favorites",
        "PUT /api/favorites/:id", "DELETE /api/favorites/:id", "GET /api/me", "GET /api/users/:id/profile", "GET /avatars/:id",
        "POST /graphql", "POST /auth/login", "POST /auth/logout", "GET /auth/validate", "GET /health", "POST /admin/funnels",
        "PATCH /admin/funnels/:id", "DELETE /admin/funnels/:id",
    ]
    static let hostileIds = [
        "c-1", "-1", "0", "c0", "c1", "c99999999999999999999", "c9223372036854775807", "circle-1", "t1", "u2", "u1", "..",
        "%2e%2e", "%00", "a%2Fb", "%F0%9F%8E%89", String(repeating: "a", count: 2_000), "funnel-1", "resolve", "dismiss",
        "NaN", "1e309", "%20", "ü", "c-9223372036854775808",
    ]
    static let hostileValues = [
        "-1", "0", "1", "501", "9223372036854775807", "99999999999999999999", "1e309", "NaN", "abc", "", "c-1", "%00",
        "2026-13-45T99:99:99Z", "-9223372036854775808", String(repeating: "9", count: 400),
    ]

    /// Bodies each route decodes, with `$V` where a hostile JSON value goes and `$N` for a fresh number: most of
    /// what the fuzzer sends passes decoding and reaches the handler's own work.
    static let templates: [String: [String]] = [
        "/contacts": [#"{"id":"fz$N","displayName":$V,"phones":[$V],"emails":[]}"#],
        "/contacts/:id": [#"{"displayName":$V}"#, #"{"phones":[$V],"emails":[$V]}"#],
        "/contacts/import": [#"{"contacts":[{"id":"fz$N","displayName":$V,"phones":[$V],"emails":[]}]}"#],
        "/circles": [#"{"id":"fzk$N","name":$V,"emoji":$V,"color":$V}"#],
        "/circles/:id": [#"{"name":$V}"#, #"{"emoji":$V,"color":$V}"#, #"{"accessPolicies":{"phones":$V}}"#],
        "/disputes": [#"{"id":"fzd$N","reason":$V}"#],
        "/profile/active": [#"{"profileId":$V}"#],
        "/chat-history/threads": [#"{"id":"fzt$N","title":$V,"area":$V}"#],
        "/chat-history/threads/:id/messages": [#"{"id":"fzm$N","role":"user","text":$V}"#],
        "/predict/ask": [#"{"question":$V,"threadId":$V}"#],
        "/compatibility/match": [#"{"partner":$V,"threadId":$V}"#],
        "/admin/funnels": [#"{"slug":"fz$N","title":$V,"pillarId":$V,"tier":$V}"#],
        "/admin/funnels/:id": [#"{"title":$V,"isActive":$V}"#],
        "/auth/login": [#"{"email":"alice@example.com","password":$V}"#, #"{"email":$V,"password":"Password1"}"#],
        "/graphql": [
            #"{"query":"query Dashboard { dashboard { id totalBalance accounts { id balance } } }"}"#,
            #"{"query":"query A($accountId: ID!, $first: Int, $after: String) { account(id: $accountId) { id transactions(first: $first, after: $after) { items { id amount } hasMore nextCursor } } }","variables":{"accountId":$V,"first":$V,"after":$V}}"#,
            #"{"query":"query R($accountId: ID!, $count: Int) { account(id: $accountId) { id recentTransactions(count: $count) { id } } }","variables":{"accountId":$V,"count":$V}}"#,
            #"{"query":"mutation P($accountId: ID!, $amount: Int!, $description: String) { makePayment(accountId: $accountId, amount: $amount, description: $description) { id } }","variables":{"accountId":$V,"amount":$V,"description":$V}}"#,
        ],
    ]

    init(fixture: BackendFixture, seed: UInt64, log: URL) async throws {
        self.fixture = fixture
        self.log = log
        random = SeededRandom(seed: seed)
        for (index, user) in LifeStory.users.enumerated() {
            let token = try await fixture.token(user.email, user.password)
            let secret = "secret-\(index)-\(seed)"
            // The records' ids say nothing of the secret: a request naming another user's record does not name
            // what its answer must not hold.
            let record = "rec\(index)"
            // Planted in every kind of the user's data the routes answer with.
            for (path, body) in [
                ("/contacts", #"{"id":"\#(record)-c","displayName":"\#(secret)","phones":["+1555\#(index)"],"emails":[]}"#),
                ("/circles", ##"{"id":"\##(record)-k","name":"\##(secret)","color":"#123456"}"##),
                ("/chat-history/threads", #"{"id":"\#(record)-t","title":"\#(secret)","area":"chat"}"#),
                ("/disputes", #"{"id":"\#(record)-d","reason":"\#(secret)"}"#),
            ] {
                let planted = try await fixture.send(.post, path, json: body, token: token)
                guard (200..<300).contains(planted.status) else { throw FuzzFailed(description: "planting in \(path): \(planted.status)") }
            }
            users.append((token, [secret, user.email]))
            planted += ["c", "k", "t", "d"].map { "\(record)-\($0)" }
        }
    }

    mutating func pick<T>(_ values: [T]) -> T {
        values[random.next(in: 0...(values.count - 1))]
    }

    /// A hostile JSON value: a string, a number past every range, another user's account or record id.
    mutating func value() -> String {
        switch random.next(in: 0...5) {
        case 0: return pick(["-1", "0", "1", "100", "-9223372036854775808", "9223372036854775808", "1e309", "0.5", "true", "null"])
        case 1: return "\"" + pick(["100", "1002", "200", "2001", "300", "999"]) + "\""
        case 2: return "\"" + pick(planted) + "\""
        case 3: return "[]"
        default: return "\"" + pick(Self.hostileValues + Self.hostileIds) + "\""
        }
    }

    /// A body for `route` (its path template) the route decodes, with hostile values, or a hostile shape.
    mutating func body(for route: String) -> Data {
        guard random.next(in: 0...2) != 0, let bodies = Self.templates[route] else { return body() }
        var text = pick(bodies)
        while let range = text.range(of: "$V") { text.replaceSubrange(range, with: value()) }
        text = text.replacingOccurrences(of: "$N", with: String(random.next(in: 0...999_999)))
        return Data(text.utf8)
    }

    /// A hostile shape: not JSON, 70 KB of braces, nothing, or random fields.
    mutating func body() -> Data {
        let strings = Self.hostileValues + Self.hostileIds
        let values = [
            "null", "true", "-1", "1e309", "9223372036854775808", "[]", "{}", "\"\(pick(strings))\"",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ]
        let keys = [
            "id", "displayName", "name", "phones", "emails", "contacts", "title", "area", "question", "text", "reason", "emoji",
            "color", "profileId", "query", "variables", "email", "password", "limit", "amount", "accountId", "field", "audience",
        ]
        switch random.next(in: 0...9) {
        case 0: return Data("not json {".utf8)
        case 1: return Data(repeating: 0x7B, count: random.next(in: 1...70_000))
        case 2: return Data()
        default:
            let fields = (0..<random.next(in: 0...6)).map { _ in "\"\(pick(keys))\":\(pick(values))" }
            return Data("{\(fields.joined(separator: ","))}".utf8)
        }
    }

    mutating func run(_ count: Int, until deadline: ContinuousClock.Instant? = nil) async throws {
        let last = log.appendingPathComponent("last-request.txt")
        for number in 0..<count {
            if let deadline, ContinuousClock.now >= deadline { break }
            var route = pick(Self.routes).split(separator: " ").map(String.init)
            if random.next(in: 0...19) == 0 { route[0] = pick(["GET", "POST", "PUT", "PATCH", "DELETE"]) }
            var path = route[1].split(separator: "/", omittingEmptySubsequences: false).map {
                $0 == ":id" ? pick(random.next(in: 0...1) == 0 ? planted : Self.hostileIds) : String($0)
            }.joined(separator: "/")
            if random.next(in: 0...2) == 0 {
                let names = ["limit", "offset", "after", "since", "cursor", "area", "date", "tier", "status", "q"]
                path += "?" + (0..<random.next(in: 1...3)).map { _ in "\(pick(names))=\(pick(Self.hostileValues))" }.joined(separator: "&")
            }
            let who = random.next(in: 0...4)  // 0...2: a user; 3: nobody; 4: a forged token
            var fields: HTTPFields = [.contentType: pick(["application/json", "text/plain", "application/json; charset=utf-8"])]
            if who < 3 { fields[.authorization] = "Bearer " + users[who].token }
            if who == 4 { fields[.authorization] = "Bearer " + pick(["x", "a.b.c", String(repeating: "A", count: 9_000)]) }
            if random.next(in: 0...3) == 0, let key = HTTPField.Name("Idempotency-Key") {
                fields[key] = pick(Self.hostileValues + ["k1", "k2"])
            }
            if random.next(in: 0...9) == 0, let big = HTTPField.Name("X-Padding") {
                fields[big] = String(repeating: "p", count: random.next(in: 1...14_000))
            }
            let method = HTTPRequest.Method(route[0]) ?? .get
            let body = method == .get || method == .delete ? nil : body(for: route[1])
            // What the server may refuse by closing the connection: headers or a body past its limits.
            let padding = HTTPField.Name("X-Padding").flatMap { fields[$0] }?.count ?? 0
            let oversized = padding > 4_000 || (fields[.authorization]?.count ?? 0) > 4_000 || (body?.count ?? 0) > 60_000
            let line =
                "#\(number) user \(who) \(route[0]) \(path) body \(body.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? "-")"
            try Data(line.utf8).write(to: last)
            guard let url = URL(string: fixture.backend.baseURL.absoluteString + path) else {
                statuses[-1, default: 0] += 1  // a path no client can send
                continue
            }
            let response: TransportResponse
            do {
                response = try await URLSessionTransport().send(
                    TransportRequest(method: method, url: url, headerFields: fields, body: body, timeout: TestDeadline.request))
            } catch {
                // The server may close a connection it refuses (a header past its limit); it must still be up, and
                // anything else is a dropped or hung answer.
                guard (200..<300).contains(try await fixture.get("/health").status) else {
                    throw FuzzFailed(description: "the server is down after \(line)")
                }
                if !oversized { problems.append("no answer (\(error)) for \(line)") }
                statuses[0, default: 0] += 1
                continue
            }
            statuses[response.status, default: 0] += 1
            if path.hasPrefix("/auth/logout"), who < 3, response.status == 204 || response.status == 200 {
                // That user's token is revoked: signed in again, so the rest of the run still speaks for them.
                let user = LifeStory.users[who]
                users[who].token = try await fixture.token(user.email, user.password)
            }
            if response.status >= 500 {
                problems.append("\(response.status) for \(line): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
            // Every answer, headers included: to a user, none of another's secrets; to a stranger, none at all.
            let answer = response.body + Data(response.headerFields.map { "\($0.name): \($0.value)\n" }.joined().utf8)
            problems += Self.leaks(in: answer, to: who < 3 ? who : -1, of: users.map(\.secrets), for: line)
        }
    }

    /// Another user's secret in the answer to `user`'s request `line` (one the request did not name itself).
    static func leaks(in answer: Data, to user: Int, of secrets: [[String]], for line: String) -> [String] {
        let text = String(decoding: answer, as: UTF8.self)
        return secrets.enumerated().filter { $0.offset != user }.flatMap { other, theirs in
            theirs.filter { text.contains($0) && !line.contains($0) }.map { "user \(user) was answered user \(other)'s \($0) for \(line)" }
        }
    }

    var summary: String {
        "\(statuses.values.reduce(0, +)) requests; statuses "
            + statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }

    struct FuzzFailed: Error, CustomStringConvertible {
        var description: String
    }
}
