import CacheKitTesting
import Foundation

/// One seeded story of the app's life on one device (``AppLifeStoryCrashTests``): users sign in, out, expire
/// and take turns; they change things in every kit, online and off; the server refuses some changes and
/// assigns its own ids. The steps are fixed by the seed; the kills between them are the parent's.
struct LifeStory: Codable, Sendable {
    /// The demo users, by index.
    static let users = [
        (email: "alice@example.com", password: "Password1"), (email: "bob@example.com", password: "Password2"),
        (email: "carol@example.com", password: "Password3"),
    ]

    /// What a step does.
    enum Kind: String, Codable, Sendable {
        // The session and the network: done again when a kill cut them.
        case signIn, logout, expire, offline, online, settle
        // Changes: each made once; one a kill cut is uncertain (applied at most once).
        case createContact, renameCreated, circleWithCreated, ask, favorite, refusedFavorite, purchase

        var isChange: Bool {
            switch self {
            case .signIn, .logout, .expire, .offline, .online, .settle: false
            default: true
            }
        }
    }

    /// One step, by the user signed in (or signing in).
    struct Step: Codable, Sendable, Hashable {
        var kind: Kind
        var user: Int
        /// The text only this change carries (a contact's or circle's name, a question): `L<seed>u<user>s<index>`.
        var marker: String
    }

    var seed: UInt64
    var steps: [Step]
    /// A funnel that exists on the server.
    var slug: String

    /// The marker every text of `user` in the story starts with.
    static func userMarker(seed: UInt64, user: Int) -> String { "L\(seed)u\(user)s" }

    /// The story of `seed`: a sign-in, then 10 to 18 steps, each possible only where the story stands (a change
    /// needs someone signed in; a sign-in, an expiry and a purchase need the network).
    init(seed: UInt64, slug: String) {
        self.seed = seed
        self.slug = slug
        var random = SeededRandom(seed: seed)
        var steps: [Step] = []
        var user = random.next(in: 0...2)
        var signedIn = false
        var online = true
        func add(_ kind: Kind) {
            steps.append(Step(kind: kind, user: user, marker: Self.userMarker(seed: seed, user: user) + "\(steps.count)"))
        }
        func goOnline() {
            if !online { add(.online) }
            online = true
        }
        goOnline()
        add(.signIn)
        signedIn = true
        let changes: [Kind] = [.createContact, .createContact, .renameCreated, .circleWithCreated, .ask, .favorite, .refusedFavorite]
        for _ in 0..<random.next(in: 10...18) {
            let roll = random.next(in: 0...99)
            if !signedIn || roll < 8 {
                // Another user's turn (a sign-in over the signed-in one, or after an end).
                goOnline()
                user = (user + random.next(in: 1...2)) % 3
                add(.signIn)
                signedIn = true
            } else if roll < 14 {
                add(.logout)
                signedIn = false
            } else if roll < 18 {
                goOnline()
                add(.expire)
                signedIn = false
            } else if roll < 30 {
                add(online ? .offline : .online)
                online.toggle()
            } else if roll < 38 {
                add(.settle)
                online = true
            } else if roll < 41 {
                goOnline()
                add(.purchase)
            } else {
                add(changes[random.next(in: 0...(changes.count - 1))])
            }
        }
        self.steps = steps
    }

    /// The steps, one to a line, for a failure's message.
    var listing: String {
        steps.enumerated().map { "\($0.offset): \($0.element.kind.rawValue) u\($0.element.user)" }.joined(separator: ", ")
    }
}

/// What the child wrote of each step: `begin` before it, `end` once it returned (with the id a creation gave,
/// or `skipped` when the step had nothing to act on). Appended and synchronized line by line, so a kill
/// leaves every line written before it.
struct LifeJournal: Sendable {
    struct Line: Codable, Sendable {
        var index: Int
        var phase: String
        var id: String?
    }

    let url: URL

    init(directory: URL) {
        url = directory.appendingPathComponent("journal.jsonl")
    }

    var lines: [Line] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        // A line cut by the kill is no line.
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    func append(_ line: Line) throws {
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: JSONEncoder().encode(line) + Data("\n".utf8))
        try handle.synchronize()
    }

    /// The steps that ended, with the id each gave.
    var ended: [Int: String?] {
        Dictionary(lines.filter { $0.phase == "end" }.map { ($0.index, $0.id) }, uniquingKeysWith: { first, _ in first })
    }

    /// What each step's begin line said (a rename's target).
    var begun: [Int: String?] {
        Dictionary(lines.filter { $0.phase == "begin" }.map { ($0.index, $0.id) }, uniquingKeysWith: { first, _ in first })
    }

    /// The steps begun and never ended (cut by a kill): a change among them happened at most once.
    var cut: Set<Int> {
        Set(lines.filter { $0.phase == "begin" }.map(\.index)).subtracting(ended.keys)
    }
}
